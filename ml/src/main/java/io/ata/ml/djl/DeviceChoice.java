package io.ata.ml.djl;

import ai.djl.Device;
import ai.djl.engine.Engine;
import java.util.Locale;

/**
 * The command line's {@code --device} value: {@code auto} (the first GPU if the engine sees one,
 * else the CPU), {@code cpu}, {@code gpu} (= {@code gpu:0}) or {@code gpu:N}. Parsing needs no
 * engine; {@link #resolve(Engine)} does.
 */
public record DeviceChoice(Kind kind, int gpuIndex) {

    /** What was asked for. */
    public enum Kind {
        AUTO,
        CPU,
        GPU
    }

    public static final DeviceChoice AUTO = new DeviceChoice(Kind.AUTO, 0);
    public static final DeviceChoice CPU = new DeviceChoice(Kind.CPU, 0);

    public DeviceChoice {
        if (gpuIndex < 0) {
            throw new IllegalArgumentException("GPU index " + gpuIndex + " is negative");
        }
    }

    /**
     * Parses {@code auto|cpu|gpu|gpu:N}.
     *
     * @throws IllegalArgumentException quoting the value and listing the accepted forms
     */
    public static DeviceChoice parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        switch (value) {
            case "auto":
                return AUTO;
            case "cpu":
                return CPU;
            case "gpu":
                return new DeviceChoice(Kind.GPU, 0);
            default:
                if (value.startsWith("gpu:")) {
                    try {
                        int index = Integer.parseInt(value.substring(4));
                        if (index >= 0) {
                            return new DeviceChoice(Kind.GPU, index);
                        }
                    } catch (NumberFormatException ignored) {
                        // reported below
                    }
                }
                throw new IllegalArgumentException(
                        "device '" + text + "': expected auto, cpu, gpu or gpu:N (N = 0, 1, ...)");
        }
    }

    /**
     * The DJL device for this choice on {@code engine}.
     *
     * @throws IllegalArgumentException when a GPU is asked for that the engine does not see
     */
    public Device resolve(Engine engine) {
        int gpus = engine.getGpuCount();
        return switch (kind) {
            case CPU -> Device.cpu();
            case AUTO -> gpus > 0 ? Device.gpu(0) : Device.cpu();
            case GPU -> {
                if (gpuIndex >= gpus) {
                    throw new IllegalArgumentException("device " + this + ": the PyTorch engine sees " + gpus
                            + " GPU(s) (CPU-only PyTorch libraries, or no CUDA device); use --device cpu or auto");
                }
                yield Device.gpu(gpuIndex);
            }
        };
    }

    @Override
    public String toString() {
        return kind == Kind.GPU ? "gpu:" + gpuIndex : kind.name().toLowerCase(Locale.ROOT);
    }
}
