package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import io.ata.ml.net.LayoutMismatchException;
import io.ata.ml.net.NetworkSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DjlNetworkTest {

    @BeforeAll
    static void start() {
        DjlRuntime.start(1);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"mlp", "cnn", "mlp:7,in=20,classes=3", "cnn:4,4,4,4,in=3x32x32,classes=5", "cnn:8", "mlp:3,3,3"})
    void theBuiltNetworkHasTheSpecsLayout(String text) {
        NetworkSpec spec = NetworkSpec.parse(text);
        // build() checks the layout; compare once more, explicitly, so the test states it
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            assertEquals(spec.layout(), network.layout());
            assertEquals(spec.parameterCount(), network.parameters().length);
        }
    }

    /** The mlp preset's spec with the block of {@code built}: refused at its first differing tensor. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "mlp:256,64     | parameter #2 differs: expected 03Linear_weight[128, 256], the network DJL built has"
                        + " 03Linear_weight[64, 256]",
                "mlp:256,128,64 | parameter #4 differs: expected 05Linear_weight[10, 128], the network DJL built has"
                        + " 05Linear_weight[64, 128]"
            })
    void aNetworkThatDiffersFromItsSpecIsRefusedNamingTheFirstDifference(String built, String message) {
        NetworkSpec spec = NetworkSpec.mlp();
        LayoutMismatchException e = assertThrows(
                LayoutMismatchException.class,
                () -> DjlNetwork.build(spec, DjlNetwork.blockOf(NetworkSpec.parse(built)), Device.cpu()));
        assertEquals(message, e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mlp", "cnn"})
    void parametersRoundTripBitwise(String text) {
        NetworkSpec spec = NetworkSpec.parse(text);
        float[] values = spec.initialParameters(42);
        values[0] = Float.MIN_VALUE; // a subnormal survives too
        values[1] = -0.0f;
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(values);
            assertArrayEquals(values, network.parameters());
            float[] other = spec.initialParameters(43);
            network.setParameters(other);
            assertArrayEquals(other, network.parameters());
        }
    }

    /**
     * Setting parameters prints nothing on stderr: not libtorch's "AutoNonVariableTypeMode is
     * deprecated" warning, which DJL's {@code NDArray.set(Buffer)} triggers (checked too, so the
     * test would see the line). libtorch prints it natively, so a child JVM runs the code.
     */
    @Test
    void settingParametersPrintsNoDeprecationWarning(@TempDir Path dir) throws Exception {
        String warning = "AutoNonVariableTypeMode is deprecated";
        String throughBuffer = runSetParameters(dir, "buffer");
        assertTrue(throughBuffer.contains(warning), "the warning this test looks for: " + throughBuffer);
        String throughNetwork = runSetParameters(dir, "network");
        assertTrue(throughNetwork.contains("set"), throughNetwork);
        assertFalse(throughNetwork.contains(warning), throughNetwork);
    }

    /** What {@link SetParametersMain} {@code how} prints, stdout and stderr merged. */
    private static String runSetParameters(Path dir, String how) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path output = dir.resolve(how + ".txt");
        Process process = new ProcessBuilder(
                        java.toString(),
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=off",
                        "-cp",
                        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                        SetParametersMain.class.getName(),
                        how)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), how + " did not finish");
        String printed = Files.readString(output);
        assertEquals(0, process.exitValue(), printed);
        return printed;
    }

    @Test
    void theWrongNumberOfValuesIsRefused() {
        try (DjlNetwork network = DjlNetwork.build(NetworkSpec.parse("mlp:3,in=2,classes=2"), Device.cpu())) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> network.setParameters(new float[16]));
            assertEquals("the network mlp:3,in=2,classes=2 has 17 parameters, got 16 values", e.getMessage());
        }
    }

    @Test
    void settingParametersReusesTheArraysAndDoesNotGrowTheManager() {
        try (DjlNetwork network = DjlNetwork.build(NetworkSpec.mlp(), Device.cpu())) {
            NDManager manager = network.manager();
            int arrays = manager.getManagedArrays().size();
            NDArray firstWeight = network.parameterList().get(0).getArray();
            for (int v = 0; v < 20; v++) {
                network.setParameters(NetworkSpec.mlp().initialParameters(v));
            }
            assertSame(firstWeight, network.parameterList().get(0).getArray());
            assertEquals(arrays, manager.getManagedArrays().size());
        }
    }
}
