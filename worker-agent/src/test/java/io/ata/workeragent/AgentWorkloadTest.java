package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TensorEncoding;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Which workload a model goes to, and that the network one (DJL) is created only when needed. */
class AgentWorkloadTest {

    private static final ComputeDevice GPU = new ComputeDevice(DeviceKind.GPU, "a GPU", 8L << 30, 4);
    private static final NetworkSpec NET = NetworkSpec.parse("mlp:4,in=784,classes=10");

    private final List<String> networkTasks = new ArrayList<>();
    private int created;
    private boolean closed;

    /** Stands in for NetworkWorkload (which would load DJL): counts its creations and tasks. */
    private final Supplier<Workload> networks = () -> {
        created++;
        return new Workload() {
            @Override
            public Optional<TaskOutput> compute(
                    ModelVersion model, String taskId, long seed, java.util.function.BooleanSupplier stop) {
                networkTasks.add(taskId);
                return Optional.of(new TaskOutput(new byte[4], TensorEncoding.FLOAT32_LE, 2.0, 8));
            }

            @Override
            public ComputeDevice device() {
                return GPU;
            }

            @Override
            public void close() {
                closed = true;
            }
        };
    };

    private final AgentWorkload workload = new AgentWorkload(new QuadraticWorkload(), networks);

    private static ModelVersion networkModel() {
        return Fixtures.networkModel("net", 0, Fixtures.taskSpec(NET, "synthetic", 60_000, 8, 8, 1), new float[0]);
    }

    @Test
    void theQuadraticProblemNeverCreatesTheNetworkWorkload() {
        for (int i = 0; i < 3; i++) {
            TaskOutput output = workload.compute(Fixtures.model("quad", 0), "quad/1/" + i, 0, () -> false)
                    .orElseThrow();
            assertEquals(TensorEncoding.FLOAT64_LE, output.encoding());
        }

        assertEquals(0, created, "no DJL for the quadratic problem");
        assertFalse(workload.networksLoaded());
        assertEquals(ComputeDevice.javaThread(), workload.device());
        assertEquals(DeviceKind.CPU, workload.device().kind());
        assertEquals(1, workload.device().threads());
        workload.close();
        assertFalse(closed);
    }

    @Test
    void aModelWithATaskSpecCreatesItOnceAndTheHeartbeatReportsItsDevice() {
        workload.compute(networkModel(), "net/1/0", 0, () -> false);
        workload.compute(Fixtures.model("quad", 0), "quad/1/0", 0, () -> false);
        workload.compute(networkModel(), "net/1/1", 0, () -> false);

        assertEquals(1, created);
        assertEquals(List.of("net/1/0", "net/1/1"), networkTasks);
        assertTrue(workload.networksLoaded());
        assertEquals(GPU, workload.device());
        workload.close();
        assertTrue(closed);
    }

    @Test
    void aFailureToLoadFailsTheTaskAndTheNextTaskSpecTriesAgain() {
        int[] attempts = {0};
        AgentWorkload failing = new AgentWorkload(new QuadraticWorkload(), () -> {
            if (attempts[0]++ == 0) {
                throw new IllegalStateException("cannot load DJL's PyTorch engine");
            }
            return networks.get();
        });

        IllegalStateException e = assertThrows(
                IllegalStateException.class, () -> failing.compute(networkModel(), "net/1/0", 0, () -> false));
        assertEquals("cannot load DJL's PyTorch engine", e.getMessage());
        assertFalse(failing.networksLoaded());

        assertTrue(failing.compute(networkModel(), "net/1/0", 0, () -> false).isPresent());
        assertEquals(2, attempts[0]);
    }

    /**
     * The whole point of loading lazily, checked where it shows: a JVM that runs only quadratic
     * tasks through the agent's own workload never loads DJL's engine or anything of PyTorch (only
     * DJL's {@code Device} value class, to describe the CPU).
     */
    @Test
    void aQuadraticOnlyAgentNeverLoadsTheEngine() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(
                        java.toString(),
                        "-verbose:class",
                        "-Dorg.slf4j.simpleLogger.defaultLogLevel=off",
                        "-cp",
                        classpath,
                        QuadraticOnlyMain.class.getName())
                .redirectErrorStream(true)
                .start();
        String output;
        try (var in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("device CPU, networks loaded: false"), output);
        assertTrue(output.contains("ai.djl.Device "), "the check sees DJL's classes load: " + output);
        List<String> engine = output.lines()
                .filter(line -> line.contains("ai.djl.engine.") || line.contains("ai.djl.pytorch."))
                .toList();
        assertEquals(List.of(), engine);
    }
}
