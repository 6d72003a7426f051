package io.ata.e2e;

import static io.ata.e2e.TrainerRounds.awaitRound;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.AdamOptimizer;
import io.ata.trainer.Aggregator;
import io.ata.trainer.FlatTensor;
import io.ata.trainer.MeanAggregator;
import io.ata.trainer.OptimizerMemory;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.workloads.QuadraticProblem;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Adam's moments (and the backup deadlines' delivery margin) survive a trainer's crash, on the embedded Kafka with the real broker and real
 * agents (the quadratic problem, float64): the optimizer state is committed with every model
 * version, and a trainer that takes over a killed one starts from the moments and step count its
 * predecessor committed, and goes on training.
 */
@EndToEnd
class OptimizerStateRestartTest {
    /** How long a round may take to close before the test fails. */
    private static final Duration ROUND_WAIT = Duration.ofSeconds(90);

    private static final int BATCH = 4;
    private static final long ROUNDS = 30;
    private static final long EVAL_EVERY = 5;
    private final AdamOptimizer adam = new AdamOptimizer(0.01);

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("adam.", 4).agentsOfMeanMs(3, 5, 7);

    private <V> Map<Long, V> byVersion(List<V> records, Function<V, Long> version) {
        Map<Long, V> out = records.stream().collect(Collectors.toMap(version, v -> v));
        assertEquals(records.size(), out.size(), "no version published twice");
        return out;
    }

    private Map<Long, ModelVersion> models(LocalDeployment local, String job) {
        return byVersion(
                TopicContents.values(
                        local, local.topics().model(), m -> m.getJob().equals(job)),
                ModelVersion::getVersion);
    }

    private Map<Long, OptimizerState> states(LocalDeployment local, String job) {
        return byVersion(
                TopicContents.values(
                        local, local.topics().optimizer(), s -> s.getJob().equals(job)),
                OptimizerState::getVersion);
    }

    @Test
    void aTrainerKilledMidRunIsSucceededByOneStartingFromTheCommittedMoments(LocalDeployment local) throws Exception {
        String job = "adam-restart";
        TrainerConfig config = local.trainerConfig(job, "ata-auto", BATCH, ROUNDS)
                .optimizer(adam)
                .evalEvery(EVAL_EVERY)
                .build();
        Trainer first = local.startTrainer(config);
        awaitRound(first, 12, ROUND_WAIT);
        first.kill();

        // what the killed trainer committed: each model version with the state after it
        Map<Long, ModelVersion> modelsAtKill = models(local, job);
        Map<Long, OptimizerState> statesAtKill = states(local, job);
        assertEquals(modelsAtKill.keySet(), statesAtKill.keySet(), "a state with every version, in its transaction");
        long v = modelsAtKill.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
        assertTrue(v >= 12, "version " + v);
        OptimizerState committed = statesAtKill.get(v);
        assertEquals(v, committed.getStep());
        assertEquals(adam.describe(), committed.getOptimizer());

        Trainer second = local.startTrainer(config);
        awaitRound(second, ROUNDS, ROUND_WAIT);

        // the successor's first step: Adam from the committed moments, on round v+1's accepted gradients
        Map<Long, ModelVersion> models = models(local, job);
        Map<Long, OptimizerState> states = states(local, job);
        OptimizerState next = states.get(v + 1);
        assertEquals(v + 1, next.getStep(), "the step count went on from " + v + ", not from 0");
        int dimension = QuadraticProblem.DEFAULT_DIMENSION;
        FlatTensor parameters = FlatTensor.decode(modelsAtKill.get(v).getParameters(), TensorEncoding.FLOAT64_LE);
        OptimizerMemory memory = OptimizerMemory.restore(committed, adam, job, v, dimension, TensorEncoding.FLOAT64_LE);
        adam.step(parameters, acceptedMean(local, job, v + 1, dimension), memory);
        assertArrayEquals(
                bytes(memory.toRecord(job, v + 1, adam, 0).getState()), bytes(next.getState()), "moments bit for bit");
        assertArrayEquals(parameters.encode(), bytes(models.get(v + 1).getParameters()), "parameters bit for bit");
        // the backup deadlines' delivery margin went on too: the successor's first close, with fewer
        // samples of its own than it needs, publishes the margin its predecessor committed
        double margin = modelsAtKill.get(v).getDeliveryMarginMs();
        assertTrue(margin > 0, "a margin learned over " + v + " rounds: " + margin);
        assertEquals(margin, models.get(v + 1).getDeliveryMarginMs(), "the margin resumed");

        // and training went on to the last round, every version with its state
        assertEquals(models.keySet(), states.keySet());
        for (long k = 0; k <= ROUNDS; k++) {
            assertTrue(models.containsKey(k), "version " + k);
            assertEquals(k, states.get(k).getStep());
        }
        double start =
                QuadraticProblem.paper().suboptimality(QuadraticProblem.paper().start());
        assertTrue(
                models.get(ROUNDS).getObjective() < start,
                "Adam made progress: " + models.get(ROUNDS).getObjective());

        // evaluations: the first and last versions and every fifth after the restart, none twice
        List<Long> evaluated = TopicContents.read(local, local.topics().evaluations()).stream()
                .map(ConsumerRecord::value)
                .filter(e -> e.getJob().equals(job))
                .map(Evaluation::getModelVersion)
                .toList();
        assertEquals(evaluated.size(), new HashSet<>(evaluated).size(), "no version scored twice: " + evaluated);
        assertTrue(evaluated.contains(0L) && evaluated.contains(ROUNDS), evaluated.toString());
        for (long k = (v / EVAL_EVERY + 1) * EVAL_EVERY; k <= ROUNDS; k += EVAL_EVERY) {
            assertTrue(evaluated.contains(k), "version " + k + " scored: " + evaluated);
        }
        assertFalse(second.failure().isPresent());
    }

    /**
     * The mean of the gradients round {@code round} accepted, in the order it accepted them (its
     * CLOSED event's COMPLETED timings), each the first result of its task id on the topic.
     */
    private double[] acceptedMean(LocalDeployment local, String job, long round, int dimension) {
        RoundEvent closed = TopicContents.read(local, local.topics().rounds()).stream()
                .map(ConsumerRecord::value)
                .filter(e -> e.getJob().equals(job) && e.getType() == RoundEventType.CLOSED && e.getRound() == round)
                .findFirst()
                .orElseThrow();
        List<TaskResult> results = TopicContents.values(
                local,
                local.topics().gradients(),
                r -> r.getJob().equals(job) && r.getRound() == round && r.getModelVersion() == round - 1);
        Aggregator.Aggregate mean = MeanAggregator.INSTANCE.open(dimension);
        for (RoundTiming t : closed.getTimings()) {
            if (t.getStatus() != TimingStatus.COMPLETED) {
                continue;
            }
            TaskResult result = results.stream()
                    .filter(r -> r.getTaskId().equals(t.getTaskId()))
                    .findFirst()
                    .orElseThrow();
            mean.add(TensorCodec.decode(result.getGradient(), result.getEncoding()));
        }
        return mean.result();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
