package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.ml.data.Dataset;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.data.TaskSamples;
import io.ata.ml.djl.DeviceChoice;
import io.ata.ml.djl.DjlNetwork;
import io.ata.ml.djl.GradientComputer;
import io.ata.ml.djl.GradientResult;
import io.ata.ml.net.LayoutMismatchException;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.HalfFloats;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The DJL workload with the real PyTorch engine (one thread, so gradients are bitwise
 * reproducible) on a small network and a small synthetic data set: each check is a few
 * forward/backward passes.
 */
class NetworkWorkloadTest {

    private static final NetworkSpec NET = NetworkSpec.parse("mlp:16,in=784,classes=10");
    private static final int SIZE = 200;
    private static final int SAMPLES = 32;
    private static final int MICRO = 8;
    private static final long SAMPLE_SEED = 11;
    private static final Dataset DATA = SyntheticDataset.of("tiny/train", 5, 0, SIZE);
    private static final TaskSpec TASK = Fixtures.taskSpec(NET, "tiny", SIZE, SAMPLES, MICRO, SAMPLE_SEED);

    private final NetworkWorkload workload = workload(TensorEncoding.FLOAT32_LE);

    private static NetworkWorkload workload(TensorEncoding encoding) {
        return new NetworkWorkload(DeviceChoice.CPU, 1, encoding, name -> DATA);
    }

    @AfterEach
    void close() {
        workload.close();
    }

    private static ModelVersion model(long version) {
        return Fixtures.networkModel("job", version, TASK, NET.initialParameters(version));
    }

    private static TaskOutput compute(NetworkWorkload workload, ModelVersion model, String taskId) {
        return workload.compute(model, taskId, 0, () -> false).orElseThrow();
    }

    private static float[] floats(TaskOutput output) {
        return TensorCodec.decodeFloats(ByteBuffer.wrap(output.gradient()), output.encoding());
    }

    /** Task {@code job/round/index}'s gradient as anyone computes it from the TaskSpec and the sample rule. */
    private static GradientResult recompute(TaskSpec task, Dataset data, float[] parameters, long round, int index) {
        int[] samples = TaskSamples.of(
                task.getSampleSeed(), "job", round, index, task.getDatasetSize(), task.getSamplesPerTask());
        try (DjlNetwork network = DjlNetwork.build(NetworkSpec.parse(task.getNetwork()), Device.cpu())) {
            network.setParameters(parameters);
            return new GradientComputer(network, task.getMicroBatch()).compute(data, samples, () -> false);
        }
    }

    @Test
    void aTaskIsTheGradientOfItsSamplesAsTheSampleRuleNamesThem() {
        ModelVersion model = model(3);

        TaskOutput output = compute(workload, model, "job/4/5");

        GradientResult expected = recompute(TASK, DATA, NET.initialParameters(3), 4, 5);
        assertEquals(TensorEncoding.FLOAT32_LE, output.encoding());
        assertArrayEquals(expected.gradient(), floats(output), "bitwise, with one PyTorch thread");
        assertEquals(expected.loss(), output.loss(), 0);
        assertEquals(SAMPLES, output.samples());
        assertEquals(NET.parameterCount(), floats(output).length);
    }

    @Test
    void theSameTaskGivesTheSameGradientAndAnotherTaskAnother() {
        ModelVersion model = model(1);
        byte[] first = compute(workload, model, "job/2/0").gradient();
        byte[] again = compute(workload, model, "job/2/0").gradient();
        try (NetworkWorkload otherAgent = workload(TensorEncoding.FLOAT32_LE)) {
            assertArrayEquals(first, compute(otherAgent, model, "job/2/0").gradient());
        }
        assertArrayEquals(first, again);
        assertFalse(Arrays.equals(first, compute(workload, model, "job/2/1").gradient()));
        assertFalse(Arrays.equals(first, compute(workload, model(2), "job/2/0").gradient()));
    }

    @Test
    void prepareBuildsWarmsUpAndLoadsTheModelBeforeTheTaskClockStarts() {
        ModelVersion model = model(3);
        workload.prepare(model);
        JobNetwork network = workload.jobs().get("job");
        assertSame(model, network.current(), "the parameters are in the network before the task");

        TaskOutput output = compute(workload, model, "job/4/5");

        assertSame(network, workload.jobs().get("job"), "the task used the prepared network");
        assertArrayEquals(
                recompute(TASK, DATA, NET.initialParameters(3), 4, 5).gradient(),
                floats(output),
                "the warm-up gradient leaves no trace in the task's");
    }

    @Test
    void theNetworkIsBuiltOncePerJobAndTheParametersSetOncePerVersion() {
        ModelVersion v1 = model(1);
        ModelVersion v2 = model(2);
        compute(workload, v1, "job/2/0");
        JobNetwork network = workload.jobs().get("job");
        assertSame(v1, network.current());
        assertFalse(network.use(v1), "the parameters of v1 are in the network already");

        TaskOutput atV2 = compute(workload, v2, "job/3/0");

        assertSame(network, workload.jobs().get("job"), "the same network for the next version");
        assertSame(v2, network.current());
        assertFalse(network.use(v2));
        assertArrayEquals(recompute(TASK, DATA, NET.initialParameters(2), 3, 0).gradient(), floats(atV2));
    }

    @Test
    void aJobWhoseTaskSpecChangesGetsANewNetworkAndOnlyTheRecentJobsAreKept() {
        compute(workload, model(1), "job/2/0");
        JobNetwork first = workload.jobs().get("job");
        TaskSpec moreSamples = TaskSpec.newBuilder(TASK).setSamplesPerTask(16).build();

        TaskOutput output =
                compute(workload, Fixtures.networkModel("job", 2, moreSamples, NET.initialParameters(2)), "job/3/0");

        assertNotEquals(first, workload.jobs().get("job"));
        assertEquals(16, output.samples());
        for (int j = 0; j < NetworkWorkload.MAX_JOBS; j++) {
            ModelVersion other = Fixtures.networkModel("other-" + j, 0, TASK, NET.initialParameters(0));
            compute(workload, other, "other-" + j + "/1/0");
        }
        assertEquals(NetworkWorkload.MAX_JOBS, workload.jobs().size());
        assertFalse(workload.jobs().containsKey("job"), "the least recently used job's network was closed");
    }

    @Test
    void sixteenBitEncodingsRoundTheFloat32Gradient() {
        ModelVersion model = model(1);
        float[] exact = floats(compute(workload, model, "job/2/0"));
        try (NetworkWorkload half = workload(TensorEncoding.FLOAT16_LE);
                NetworkWorkload brain = workload(TensorEncoding.BFLOAT16_LE)) {
            TaskOutput f16 = compute(half, model, "job/2/0");
            TaskOutput bf16 = compute(brain, model, "job/2/0");

            assertEquals(TensorEncoding.FLOAT16_LE, f16.encoding());
            assertEquals(2 * exact.length, f16.gradient().length);
            assertEquals(TensorEncoding.BFLOAT16_LE, bf16.encoding());
            float[] f16Values = floats(f16);
            float[] bf16Values = floats(bf16);
            for (int i = 0; i < exact.length; i++) {
                assertEquals(HalfFloats.fromFloat16(HalfFloats.toFloat16(exact[i])), f16Values[i], 0);
                assertEquals(HalfFloats.fromBfloat16(HalfFloats.toBfloat16(exact[i])), bf16Values[i], 0);
            }
        }
    }

    @Test
    void aTaskStopsBetweenMicroBatchesWhenAsked() {
        AtomicInteger asked = new AtomicInteger();

        // 32 samples in micro-batches of 8: the stop is asked before each; yes on the third ask
        boolean computed = workload.compute(model(1), "job/2/0", 0, () -> asked.incrementAndGet() == 3)
                .isPresent();

        assertFalse(computed, "a stopped task has no result");
        assertEquals(3, asked.get(), "two micro-batches ran, the third did not start");
    }

    @Test
    void refusesATaskSpecWhoseParametersAreNotTheNetworks() {
        TaskSpec otherLayout = TaskSpec.newBuilder(TASK)
                .setParameters(Fixtures.taskSpec(NetworkSpec.parse("mlp:17,in=784,classes=10"), "tiny", SIZE, 8, 8, 1)
                        .getParameters())
                .build();
        ModelVersion model = Fixtures.networkModel("job", 1, otherLayout, NET.initialParameters(1));

        LayoutMismatchException e =
                assertThrows(LayoutMismatchException.class, () -> compute(workload, model, "job/2/0"));
        assertTrue(e.getMessage().startsWith("job job: the TaskSpec's parameters do not fit: "), e.getMessage());
        assertTrue(e.getMessage().contains("01Linear_weight[17, 784]"), e.getMessage());
        assertTrue(workload.jobs().isEmpty());
    }

    @Test
    void refusesADataSetOfAnotherSize() {
        TaskSpec bigger = TaskSpec.newBuilder(TASK).setDatasetSize(SIZE + 1).build();
        ModelVersion model = Fixtures.networkModel("job", 1, bigger, NET.initialParameters(1));

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> compute(workload, model, "job/2/0"));
        assertEquals(
                "job job: the data set tiny/train here has 200 training samples, the job's tiny has 201 (another"
                        + " version of it, or --data names another one)",
                e.getMessage());
    }

    @Test
    void refusesParametersOfTheWrongLength() {
        float[] tooFew = Arrays.copyOf(NET.initialParameters(1), NET.parameterCount() - 1);
        ModelVersion model = Fixtures.networkModel("job", 1, TASK, tooFew);

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> compute(workload, model, "job/2/0"));
        assertEquals(
                "model of job job version 1 has 12729 parameters, its network mlp:16,in=784,classes=10 has 12730",
                e.getMessage());
    }

    @Test
    void refusesANetworkThatDoesNotParseAndAModelWithoutTaskSpec() {
        TaskSpec garbled = TaskSpec.newBuilder(TASK).setNetwork("rnn:5").build();
        ModelVersion model = Fixtures.networkModel("job", 1, garbled, NET.initialParameters(1));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> compute(workload, model, "job/2/0"));
        assertTrue(e.getMessage().startsWith("job job: network 'rnn:5': unknown network kind 'rnn'"), e.getMessage());

        IllegalArgumentException quadratic = assertThrows(
                IllegalArgumentException.class, () -> compute(workload, Fixtures.model("job", 0), "job/1/0"));
        assertTrue(quadratic.getMessage().contains("has no TaskSpec"), quadratic.getMessage());
    }

    @Test
    void resolvesTheTaskSpecsDataSetByNameWithTheStandardResolver() {
        TaskSpec synthetic = Fixtures.taskSpec(NET, "synthetic", SyntheticDataset.TRAIN_SIZE, 8, 8, 3);
        ModelVersion model = Fixtures.networkModel("job", 1, synthetic, NET.initialParameters(1));
        try (NetworkWorkload standard = new NetworkWorkload(
                DeviceChoice.AUTO, 1, TensorEncoding.FLOAT32_LE, NetworkWorkload.standardTrainingSets())) {
            TaskOutput output = compute(standard, model, "job/2/7");

            Dataset train = SyntheticDataset.split(0).train();
            assertArrayEquals(
                    recompute(synthetic, train, NET.initialParameters(1), 2, 7).gradient(), floats(output));
        }
    }

    @Test
    void reportsTheCpuWithItsThreads() {
        ComputeDevice device = workload.device();
        assertEquals(DeviceKind.CPU, device.kind());
        assertFalse(device.name().isBlank());
        assertTrue(device.memoryBytes() > 0, "the machine's RAM");
        assertEquals(1, device.threads());
        assertTrue(workload.describe().contains("1 thread(s), FLOAT32_LE gradients"), workload.describe());
    }
}
