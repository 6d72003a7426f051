package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.djl.Device;
import ai.djl.engine.Engine;
import io.ata.ml.data.Dataset;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.net.NetworkSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeviceTest {
    private static Engine engine;

    @BeforeAll
    static void start() {
        engine = DjlRuntime.start(1);
    }

    @Test
    void parsesTheDeviceValues() {
        assertEquals(DeviceChoice.AUTO, DeviceChoice.parse("auto"));
        assertEquals(DeviceChoice.CPU, DeviceChoice.parse(" CPU "));
        assertEquals(new DeviceChoice(DeviceChoice.Kind.GPU, 0), DeviceChoice.parse("gpu"));
        assertEquals(new DeviceChoice(DeviceChoice.Kind.GPU, 3), DeviceChoice.parse("gpu:3"));
        assertEquals("gpu:3", DeviceChoice.parse("gpu:3").toString());
        assertEquals("auto", DeviceChoice.AUTO.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "tpu", "gpu:", "gpu:-1", "gpu:x", "cuda:0"})
    void badValuesSayWhatIsAccepted(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceChoice.parse(text));
        assertEquals("device '" + text + "': expected auto, cpu, gpu or gpu:N (N = 0, 1, ...)", e.getMessage());
    }

    @Test
    void cpuAndAutoResolve() {
        assertEquals(Device.cpu(), DeviceChoice.CPU.resolve(engine));
        Device auto = DeviceChoice.AUTO.resolve(engine);
        assertEquals(engine.getGpuCount() > 0 ? Device.gpu(0) : Device.cpu(), auto);
    }

    @Test
    void aGpuTheEngineDoesNotSeeIsAClearError() {
        int gpus = engine.getGpuCount();
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> DeviceChoice.parse("gpu:" + gpus).resolve(engine));
        assertTrue(e.getMessage().startsWith("device gpu:" + gpus + ": the PyTorch engine sees " + gpus + " GPU(s)"));
    }

    @Test
    void describesTheCpu() {
        DeviceInfo cpu = DeviceInfo.of(Device.cpu());
        assertEquals(DeviceInfo.Kind.CPU, cpu.kind());
        assertFalse(cpu.name().isBlank());
        assertTrue(cpu.memoryBytes() > 64L << 20, "physical memory " + cpu.memoryBytes());
    }

    @Test
    void cpuNameComesFromProcCpuinfo(@TempDir Path dir) throws IOException {
        Path cpuinfo = dir.resolve("cpuinfo");
        Files.writeString(
                cpuinfo,
                "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)   CPU @ 2.20GHz\n"
                        + "processor\t: 1\nmodel name\t: Other\n");
        assertEquals("Intel(R) Xeon(R) CPU @ 2.20GHz", DeviceInfo.cpuName(cpuinfo));
        Files.writeString(cpuinfo, "processor\t: 0\nCPU implementer\t: 0x41\n"); // arm: no model name
        assertEquals(System.getProperty("os.arch"), DeviceInfo.cpuName(cpuinfo));
        assertEquals(System.getProperty("os.arch"), DeviceInfo.cpuName(dir.resolve("missing")));
    }

    @Test
    void describesTheGpu() {
        assumeTrue(engine.getGpuCount() > 0, "no CUDA device visible to the PyTorch engine: GPU path not run");
        DeviceInfo gpu = DeviceInfo.of(Device.gpu(0));
        assertEquals(DeviceInfo.Kind.GPU, gpu.kind());
        assertFalse(gpu.name().isBlank());
        assertTrue(gpu.memoryBytes() > 0, "GPU memory " + gpu.memoryBytes());
        assertTrue(GpuNames.name(0).isPresent(), "NVML gave no name for GPU 0");
    }

    @Test
    void gradientsOnTheGpuMatchTheCpu() {
        assumeTrue(engine.getGpuCount() > 0, "no CUDA device visible to the PyTorch engine: GPU path not run");
        NetworkSpec spec = NetworkSpec.cnn();
        Dataset data = SyntheticDataset.split(0).train();
        int[] samples = DjlTestSupport.range(0, 32);
        float[] parameters = spec.initialParameters(1);
        try (DjlNetwork cpu = DjlNetwork.build(spec, Device.cpu());
                DjlNetwork gpu = DjlNetwork.build(spec, Device.gpu(0))) {
            cpu.setParameters(parameters);
            gpu.setParameters(parameters);
            assertArrayEquals(parameters, gpu.parameters());
            GradientResult onCpu = new GradientComputer(cpu, 16).compute(data, samples, () -> false);
            GradientResult onGpu = new GradientComputer(gpu, 16).compute(data, samples, () -> false);
            assertTrue(DjlTestSupport.relativeDifference(onGpu.gradient(), onCpu.gradient()) < 1e-4);
            assertEquals(onCpu.loss(), onGpu.loss(), 1e-4);
        }
    }
}
