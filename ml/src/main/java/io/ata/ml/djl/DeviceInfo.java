package io.ata.ml.djl;

import ai.djl.Device;
import ai.djl.util.cuda.CudaUtils;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a worker computes on, for heartbeats: CPU or GPU, a human name and the memory in bytes (the
 * machine's physical RAM for the CPU, the card's total memory for a GPU; 0 when unknown). Finding
 * these never fails: a missing source gives a fallback name or 0.
 *
 * <p>CPU name: the first {@code model name} of {@code /proc/cpuinfo}, else {@code os.arch}. GPU
 * memory: DJL's {@code CudaUtils.getGpuMemory}; GPU name: NVML (see {@link GpuNames}), else {@code
 * GPU N}.
 */
public record DeviceInfo(Kind kind, String name, long memoryBytes) {

    /** The kind of device. */
    public enum Kind {
        CPU,
        GPU
    }

    /** Describes {@code device} (a GPU needs the engine started). */
    public static DeviceInfo of(Device device) {
        if (device.isGpu()) {
            return gpu(device);
        }
        return new DeviceInfo(Kind.CPU, cpuName(Path.of("/proc/cpuinfo")), physicalMemory());
    }

    private static DeviceInfo gpu(Device device) {
        long memory;
        try {
            memory = CudaUtils.getGpuMemory(device).getMax();
        } catch (RuntimeException | LinkageError e) {
            memory = 0;
        }
        String name = GpuNames.name(device.getDeviceId()).orElse("GPU " + device.getDeviceId());
        return new DeviceInfo(Kind.GPU, name, Math.max(0, memory));
    }

    /** The first {@code model name} in a {@code /proc/cpuinfo}-style file, else {@code os.arch}. */
    static String cpuName(Path cpuinfo) {
        try {
            List<String> lines = Files.readAllLines(cpuinfo);
            for (String line : lines) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equals("model name")) {
                    String name = line.substring(colon + 1).trim().replaceAll("\\s+", " ");
                    if (!name.isEmpty()) {
                        return name;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc (not Linux) or unreadable: fall back
        }
        return System.getProperty("os.arch", "unknown CPU");
    }

    private static long physicalMemory() {
        try {
            if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                return Math.max(0, os.getTotalMemorySize());
            }
        } catch (RuntimeException | LinkageError e) {
            // not a HotSpot-like JVM: unknown
        }
        return 0;
    }
}
