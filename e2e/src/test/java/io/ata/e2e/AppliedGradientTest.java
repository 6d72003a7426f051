package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.local.LocalDeployment;
import io.ata.ml.data.DataSplit;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.data.TaskSamples;
import io.ata.ml.djl.DjlNetwork;
import io.ata.ml.djl.GradientComputer;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.TaskSpec;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.SgdOptimizer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The gradient a live trainer applied is the one its tasks define: a real network ({@code mlp} on
 * {@code synthetic}) trained for a few rounds by real agents on the embedded Kafka broker, and
 * every round's applied mean gradient, read back from the topics, equals the mean of the accepted
 * tasks' gradients computed here, in one process, from the same parameters and samples.
 *
 * <p>Plain SGD with learning rate 1 and no momentum or weight decay makes the applied mean readable
 * from two consecutive model versions: {@code p_k = p_{k-1} - g}, so {@code g = p_{k-1} - p_k}
 * (float32 rounding of {@code p_k} is far below the tolerance).
 */
@EndToEnd
class AppliedGradientTest {
    private static final String JOB = "applied";
    private static final int AGENTS = 3;
    private static final int BATCH = 3;
    private static final long ROUNDS = 3;
    /** 1: the applied gradient is the difference of two versions. */
    private static final double LEARNING_RATE = 1.0;
    /** The bound on the difference, per parameter. */
    private static final double TOLERANCE = 1e-5;

    @RegisterExtension
    final EmbeddedFleet fleet = NetworkFleet.of("applied.", AGENTS);

    @Test
    void everyRoundAppliesTheMeanOfItsAcceptedTasksGradients(LocalDeployment local) throws Exception {
        NetworkFleet.train(
                local,
                NetworkFleet.trainer(local, JOB, "mlp", BATCH, ROUNDS)
                        .optimizer(new SgdOptimizer(LEARNING_RATE, 0, 0))
                        .build(),
                Duration.ofSeconds(180));

        ModelHistory history = ModelHistory.read(local, JOB);
        Map<Long, List<String>> accepted = ModelHistory.acceptedTasks(local, JOB);
        TaskSpec task = history.task();
        NetworkSpec spec = NetworkSpec.parse(task.getNetwork());
        DataSplit data = new DatasetResolver(List.of()).resolve(task.getDataset());
        assertEquals(task.getDatasetSize(), data.train().size());

        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            GradientComputer computer = new GradientComputer(network, task.getMicroBatch());
            for (long round = 1; round <= ROUNDS; round++) {
                float[] before = history.version(round - 1);
                float[] after = history.version(round);
                List<String> tasks = accepted.get(round);
                assertEquals(BATCH, tasks.size(), "round " + round + " accepted B tasks: " + tasks);

                // the mean of the accepted tasks' gradients, recomputed from version round-1
                network.setParameters(before);
                double[] expected = new double[before.length];
                for (String taskId : tasks) {
                    int[] samples = TaskSamples.ofTask(
                            task.getSampleSeed(), taskId, task.getDatasetSize(), task.getSamplesPerTask());
                    float[] g =
                            computer.compute(data.train(), samples, () -> false).gradient();
                    for (int i = 0; i < g.length; i++) {
                        expected[i] += g[i] / (double) tasks.size();
                    }
                }

                double maxDifference = 0;
                double maxApplied = 0;
                for (int i = 0; i < before.length; i++) {
                    double applied = ((double) before[i] - after[i]) / LEARNING_RATE;
                    maxDifference = Math.max(maxDifference, Math.abs(applied - expected[i]));
                    maxApplied = Math.max(maxApplied, Math.abs(applied));
                }
                assertTrue(maxApplied > 1e-3, "round " + round + " moved the parameters: " + maxApplied);
                assertTrue(
                        maxDifference <= TOLERANCE,
                        "round " + round + ": applied mean gradient differs from the recomputed one by "
                                + maxDifference);
            }
        }
    }
}
