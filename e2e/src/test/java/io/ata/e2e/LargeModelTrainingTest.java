package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.TaskResult;
import io.ata.schemas.chunk.Chunks;
import io.ata.testsupport.EndToEnd;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A model of over 10 million parameters trains end to end through the embedded Kafka broker with
 * its default message limits (1 MiB records): every model version and every gradient, some 46 MB
 * each in float32, travels in slices of {@link Chunks#DEFAULT_CHUNK_BYTES}, and rounds close, the
 * version advances and the parameters change.
 */
@EndToEnd
class LargeModelTrainingTest {
    private static final String JOB = "large";
    /** 784-4096-2048-10: 11,626,506 parameters. */
    private static final String MODEL = "mlp:4096,2048";

    private static final int BATCH = 2;
    private static final long ROUNDS = 2;

    @RegisterExtension
    final EmbeddedFleet fleet = NetworkFleet.of("large.", BATCH);

    @Test
    void aTenMillionParameterModelTrainsThroughDefaultMessageLimits(LocalDeployment local) throws Exception {
        int parameters = NetworkSpec.parse(MODEL).parameterCount();
        assertTrue(parameters >= 10_000_000, "parameters: " + parameters);

        NetworkFleet.train(
                local, NetworkFleet.trainer(local, JOB, MODEL, BATCH, ROUNDS).build(), Duration.ofMinutes(5));

        // every version committed, whole, and each step changed the parameters
        ModelHistory history = ModelHistory.read(local, JOB);
        assertEquals(Set.of(0L, 1L, 2L), history.versions().keySet());
        for (long v = 1; v <= ROUNDS; v++) {
            float[] before = history.version(v - 1);
            float[] after = history.version(v);
            assertEquals(parameters, after.length);
            int changed = 0;
            for (int i = 0; i < after.length; i++) {
                if (after[i] != before[i]) {
                    changed++;
                }
            }
            assertTrue(changed > parameters / 10, "version " + v + " changed " + changed + " parameters");
        }

        // the gradients came as slices of at most the default chunk size, B whole ones per round
        int sliceCount = Chunks.count(parameters * Float.BYTES, Chunks.DEFAULT_CHUNK_BYTES);
        var slices = TopicContents.read(local, local.topics().gradients()).stream()
                .map(ConsumerRecord::value)
                .filter(r -> r.getJob().equals(JOB))
                .toList();
        for (TaskResult slice : slices) {
            assertEquals(sliceCount, slice.getChunks());
            assertTrue(slice.getGradient().remaining() <= Chunks.DEFAULT_CHUNK_BYTES);
        }
        Set<String> results =
                slices.stream().map(r -> r.getTaskId() + " " + r.getPayloadId()).collect(Collectors.toSet());
        assertTrue(results.size() >= BATCH * ROUNDS, "whole results: " + results);
        assertEquals(
                (long) results.size() * sliceCount, slices.size(), "every result's every slice, committed together");
        assertEquals(ROUNDS, ModelHistory.acceptedTasks(local, JOB).size());
    }
}
