package io.ata.workeragent;

import ai.djl.Device;
import io.ata.ml.djl.DeviceInfo;
import io.ata.schemas.DeviceKind;
import java.util.Objects;

/**
 * What computes an agent's tasks, as its heartbeats report it ({@code WorkerHeartbeat.device},
 * {@code device_name}, {@code device_memory_bytes}, {@code threads}).
 *
 * @param kind CPU or GPU
 * @param name e.g. the CPU's model name or the GPU's
 * @param memoryBytes the device's memory (physical RAM for a CPU), 0 if unknown
 * @param threads compute threads the tasks use (PyTorch's on a CPU), 0 if unknown
 */
public record ComputeDevice(DeviceKind kind, String name, long memoryBytes, int threads) {

    public ComputeDevice {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
    }

    /** {@code info}'s device, computing with {@code threads} threads. */
    public static ComputeDevice of(DeviceInfo info, int threads) {
        DeviceKind kind = info.kind() == DeviceInfo.Kind.GPU ? DeviceKind.GPU : DeviceKind.CPU;
        return new ComputeDevice(kind, info.name(), info.memoryBytes(), threads);
    }

    /**
     * The agent's task thread on this machine's CPU: what computes plain-Java workloads such as the
     * quadratic problem. Needs no engine (only DJL's {@code Device} value class, to describe the
     * CPU); looked up once.
     */
    public static ComputeDevice javaThread() {
        return JavaThread.DEVICE;
    }

    /** Reads /proc/cpuinfo on first use only. */
    private static final class JavaThread {
        static final ComputeDevice DEVICE = of(DeviceInfo.of(Device.cpu()), 1);
    }
}
