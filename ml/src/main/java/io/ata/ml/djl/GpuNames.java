package io.ata.ml.djl;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * GPU names from NVML ({@code libnvidia-ml}, installed with the NVIDIA driver) through JNA: DJL
 * reports GPU count and memory but no name. Fails soft: no NVML, no such GPU or any NVML error
 * gives an empty result.
 *
 * <p>CUDA device {@code N} is looked up as NVML device {@code N}, or as the {@code N}th entry of
 * {@code CUDA_VISIBLE_DEVICES} (an index or a {@code GPU-...} UUID) when that is set. NVML counts
 * in PCI bus order; CUDA does too only with {@code CUDA_DEVICE_ORDER=PCI_BUS_ID}, so on a machine
 * with different GPU models the name may be another GPU's. Not yet run on a GPU.
 */
public final class GpuNames {
    private static final int NAME_BUFFER = 96; // NVML_DEVICE_NAME_V2_BUFFER_SIZE

    private GpuNames() {}

    /** The minimal NVML binding; JNA binds methods by name, so they carry the C symbols' names. */
    @SuppressWarnings("checkstyle:MethodName")
    interface Nvml extends Library {
        int nvmlInit_v2();

        int nvmlShutdown();

        int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

        int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);

        int nvmlDeviceGetName(Pointer device, byte[] name, int length);
    }

    /** The name of CUDA device {@code cudaIndex}, if NVML can tell. */
    public static Optional<String> name(int cudaIndex) {
        Nvml nvml;
        try {
            nvml = Native.load("nvidia-ml", Nvml.class);
        } catch (UnsatisfiedLinkError | RuntimeException e) {
            return Optional.empty();
        }
        try {
            if (nvml.nvmlInit_v2() != 0) {
                return Optional.empty();
            }
            try {
                PointerByReference device = new PointerByReference();
                String visible = visibleDevice(cudaIndex);
                int rc;
                if (visible == null) {
                    rc = nvml.nvmlDeviceGetHandleByIndex_v2(cudaIndex, device);
                } else if (visible.startsWith("GPU-") || visible.startsWith("MIG-")) {
                    rc = nvml.nvmlDeviceGetHandleByUUID(visible, device);
                } else {
                    rc = nvml.nvmlDeviceGetHandleByIndex_v2(Integer.parseInt(visible), device);
                }
                if (rc != 0) {
                    return Optional.empty();
                }
                byte[] name = new byte[NAME_BUFFER];
                if (nvml.nvmlDeviceGetName(device.getValue(), name, name.length) != 0) {
                    return Optional.empty();
                }
                int length = 0;
                while (length < name.length && name[length] != 0) {
                    length++;
                }
                String text = new String(name, 0, length, StandardCharsets.UTF_8).trim();
                return text.isEmpty() ? Optional.empty() : Optional.of(text);
            } finally {
                nvml.nvmlShutdown();
            }
        } catch (RuntimeException | LinkageError e) {
            return Optional.empty();
        }
    }

    /** The {@code index}th entry of {@code CUDA_VISIBLE_DEVICES}, or null when it is not set. */
    private static String visibleDevice(int index) {
        String visible = System.getenv("CUDA_VISIBLE_DEVICES");
        if (visible == null || visible.isBlank()) {
            return null;
        }
        String[] entries = visible.split(",");
        return index < entries.length ? entries[index].trim() : null;
    }
}
