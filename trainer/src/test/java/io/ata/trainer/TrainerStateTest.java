package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.Records;
import io.ata.workloads.QuadraticProblem;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.Test;

class TrainerStateTest {
    private static final String JOB = "quad";
    private static final int B = 4;
    private static final double STEP = QuadraticProblem.DEFAULT_STEP;

    private final TestClock clock = new TestClock(1_000_000);
    private final QuadraticObjective objective = QuadraticObjective.paper();

    private TrainingJob job(long maxRounds) {
        return new TrainingJob(JOB, B, "ata", 42, maxRounds, new ObjectiveModel(objective), new SgdOptimizer(STEP));
    }

    /** What a worker computes for task {@code index} of round {@code round} at {@code x}. */
    private TaskResult workerResult(long round, int index, double[] x, SplittableRandom rng) {
        double[] g = new double[x.length];
        objective.problem().stochasticGradient(x, rng, g);
        return Results.of(JOB, round, index, "w" + (index % 3), g, 10 + index);
    }

    @Test
    void aFreshJobPublishesVersionZeroAndOpensRoundOneWithPolicyAndSeed() {
        TrainerState state = TrainerState.fresh(job(10), clock);
        Transition first = state.firstTransition();
        ModelVersion v0 = first.model();
        assertEquals(0, v0.getVersion());
        assertEquals(JOB, v0.getJob());
        assertArrayEquals(objective.initialParameters(), TensorCodec.decode(v0.getParameters(), v0.getEncoding()), 0);
        assertEquals(objective.evaluate(objective.initialParameters()), v0.getObjective());
        assertEquals(clock.millis(), v0.getTimestampMs());
        assertNull(first.closed());

        assertEquals(1, first.roundEvents().size());
        RoundEvent opened = first.roundEvents().get(0);
        assertEquals(RoundEventType.OPENED, opened.getType());
        assertEquals(1, opened.getRound());
        assertEquals(0, opened.getModelVersion());
        assertEquals(B, opened.getBatch());
        assertEquals("ata", opened.getPolicy());
        assertEquals(42, opened.getSeed());
        assertEquals(10, opened.getLastRound(), "a broker planning rounds ahead plans none past it");
        assertEquals(1, state.openRound().orElseThrow().round());
    }

    @Test
    void aJobWithoutALastRoundOpensItsRoundsWithNone() {
        RoundEvent opened = TrainerState.fresh(job(Long.MAX_VALUE), clock)
                .firstTransition()
                .roundEvents()
                .get(0);
        assertEquals(0, opened.getLastRound(), "unknown: nothing is planned ahead of its rounds");
        // a limit no job can reach is none: as a last round the broker refused it, and the job froze
        for (long unreachable : new long[] {ModelVersions.MAX_ROUND + 1, Long.MAX_VALUE / 2}) {
            RoundEvent first = TrainerState.fresh(job(unreachable), clock)
                    .firstTransition()
                    .roundEvents()
                    .get(0);
            assertEquals(0, first.getLastRound(), "rounds up to " + unreachable);
        }
        RoundEvent last = TrainerState.fresh(job(ModelVersions.MAX_ROUND), clock)
                .firstTransition()
                .roundEvents()
                .get(0);
        assertEquals(ModelVersions.MAX_ROUND, last.getLastRound());
    }

    @Test
    void closingARoundStepsSgdAndPublishesVersionCloseAndNextOpen() {
        TrainerState state = TrainerState.fresh(job(10), clock);
        double[] x0 = state.parameters();
        double[][] grads = {{1}, {2}, {3}, {6}};
        double[] mean = new double[x0.length];
        for (int i = 0; i < B; i++) {
            double[] g = Results.filled(x0.length, grads[i][0]);
            clock.advance(100);
            assertEquals(OfferOutcome.ACCEPTED, state.offer(Results.of(JOB, 1, i, "w" + i, g, 50 + i)));
            for (int d = 0; d < mean.length; d++) {
                mean[d] += g[d] / B;
            }
        }
        assertTrue(state.roundComplete());
        clock.advance(5);
        Transition close = state.closeRound();

        double[] expected = x0.clone();
        for (int d = 0; d < expected.length; d++) {
            expected[d] -= STEP * mean[d];
        }
        ModelVersion v1 = close.model();
        assertEquals(1, v1.getVersion());
        assertArrayEquals(expected, TensorCodec.decode(v1.getParameters(), v1.getEncoding()), 0);
        assertArrayEquals(expected, state.parameters(), 0);
        assertEquals(objective.evaluate(expected), v1.getObjective());
        assertEquals(clock.millis(), v1.getTimestampMs());

        assertEquals(2, close.roundEvents().size());
        RoundEvent closed = close.roundEvents().get(0);
        assertEquals(RoundEventType.CLOSED, closed.getType());
        assertEquals(1, closed.getRound());
        assertEquals(0, closed.getModelVersion());
        assertEquals(400.0, closed.getRoundTimeMs());
        assertEquals(B, closed.getTimings().size());
        assertTrue(closed.getTimings().stream().allMatch(t -> t.getStatus() == TimingStatus.COMPLETED));

        RoundEvent opened = close.roundEvents().get(1);
        assertEquals(RoundEventType.OPENED, opened.getType());
        assertEquals(2, opened.getRound());
        assertEquals(1, opened.getModelVersion());
        assertEquals(B, opened.getBatch());
        assertEquals("", opened.getPolicy(), "only round 1 carries the policy");
        assertEquals(0, opened.getSeed());
        assertEquals(10, opened.getLastRound());

        RoundSummary summary = close.closed();
        assertEquals(1, summary.round());
        assertEquals(400.0, summary.roundTimeMs());
        assertEquals(B, summary.accepted());
        assertEquals(2, state.openRound().orElseThrow().round());
        // a late result of round 1 arriving now is stale for round 2
        assertEquals(OfferOutcome.STALE, state.offer(Results.of(JOB, 1, 9, "w9", new double[x0.length], 1)));
    }

    @Test
    void theLastRoundClosesWithoutOpeningAnother() {
        TrainerState state = TrainerState.fresh(job(1), clock);
        SplittableRandom rng = new SplittableRandom(1);
        for (int i = 0; i < B; i++) {
            state.offer(workerResult(1, i, state.parameters(), rng));
        }
        Transition close = state.closeRound();
        assertEquals(
                List.of(RoundEventType.CLOSED),
                close.roundEvents().stream().map(RoundEvent::getType).toList());
        assertTrue(state.finished());
        assertFalse(state.roundComplete());
        assertTrue(state.openRound().isEmpty());
        assertEquals(OfferOutcome.STALE, state.offer(workerResult(2, 0, state.parameters(), rng)));
        assertThrows(IllegalStateException.class, state::closeRound);
    }

    @Test
    void closingAnIncompleteRoundFails() {
        TrainerState state = TrainerState.fresh(job(5), clock);
        assertThrows(IllegalStateException.class, state::closeRound);
    }

    /**
     * The restart scenario: a trainer closes rounds 1 and 2 (committing model version 2 with the
     * offsets of what it read), reads part of round 3, and dies. Its successor recovers from model
     * version 2 and reads the gradients again from the committed offsets. The model it ends with is
     * the one the uninterrupted trainer would have produced, and nothing of round 2 is applied twice.
     */
    @Test
    void recoveringFromTheLastModelVersionReproducesTheUninterruptedRun() {
        SplittableRandom rng = new SplittableRandom(3);
        // the gradients topic as the workers fill it, each result computed at the right model
        List<TaskResult> log = new ArrayList<>();
        TrainerState reference = TrainerState.fresh(job(3), clock);
        List<ModelVersion> committed = new ArrayList<>();
        List<Integer> committedOffsets = new ArrayList<>();
        committed.add(reference.firstTransition().model());
        committedOffsets.add(0);
        for (long round = 1; round <= 3; round++) {
            double[] x = reference.parameters();
            for (int i = 0; i < B + 2; i++) { // two more than needed: GTA-style surplus, LATE
                TaskResult r = workerResult(round, i, x, rng);
                log.add(r);
                reference.offer(r);
                if (i == 1) {
                    log.add(r); // a duplicate, as after a rebalance
                    reference.offer(r);
                }
                if (reference.roundComplete()) {
                    committed.add(reference.closeRound().model());
                    committedOffsets.add(log.size()); // offsets committed with the close
                }
            }
        }
        assertTrue(reference.finished());
        double[] expected = reference.parameters();

        // the crash: model version 2 and its offsets are committed; part of round 3 was read
        ModelVersion v2 = committed.get(2);
        assertEquals(2, v2.getVersion());
        int resumeAt = committedOffsets.get(2);
        clock.advance(60_000); // the restart takes a minute
        TrainerState recovered = TrainerState.recover(v2, job(3), clock);
        assertEquals(2, recovered.modelVersion());
        RoundAccumulator open = recovered.openRound().orElseThrow();
        assertEquals(3, open.round());
        assertEquals(v2.getTimestampMs(), open.openedAtMs(), "the round opened when version 2 was published");

        for (TaskResult r : log.subList(resumeAt, log.size())) {
            recovered.offer(r);
            if (recovered.roundComplete()) {
                Transition close = recovered.closeRound();
                assertEquals(3, close.model().getVersion());
                assertTrue(close.closed().roundTimeMs() >= 60_000, "the round time includes the downtime");
            }
        }
        assertTrue(recovered.finished());
        assertArrayEquals(expected, recovered.parameters(), 0);

        // results of round 2 read again (offsets not committed as they should be) are stale, never applied
        TrainerState again = TrainerState.recover(v2, job(3), clock);
        for (TaskResult r : log.subList(committedOffsets.get(1), resumeAt)) {
            assertEquals(OfferOutcome.STALE, again.offer(r));
        }
        assertEquals(0, again.openRound().orElseThrow().accepted());
    }

    @Test
    void recoveringTheLastVersionOfAFinishedJobLeavesNothingOpen() {
        ModelVersion v5 = TrainerState.fresh(job(10), clock).currentModel();
        v5.setVersion(5L);
        TrainerState state = TrainerState.recover(v5, job(5), clock);
        assertTrue(state.finished());
        assertEquals(5, state.modelVersion());
        assertThrows(IllegalStateException.class, state::firstTransition);
    }

    @Test
    void recoverRejectsAModelOfAnotherJobOrSize() {
        ModelVersion model = TrainerState.fresh(job(10), clock).currentModel();
        model.setJob("other");
        assertThrows(IllegalArgumentException.class, () -> TrainerState.recover(model, job(10), clock));
        model.setJob(JOB);
        model.setParameters(ByteBuffer.wrap(TensorCodec.encode(new double[3], TensorEncoding.FLOAT64_LE)));
        assertThrows(IllegalArgumentException.class, () -> TrainerState.recover(model, job(10), clock));
    }

    /** A small float32 network trained by Adam: its results carry float32 gradients and a loss. */
    private static final NetworkModel NETWORK =
            new NetworkModel(NetworkSpec.parse("mlp:8"), "synthetic", SyntheticDataset.split(0), 16, 8, 1);

    private TrainingJob adamJob(long maxRounds) {
        return new TrainingJob(
                "net", B, "ata", 42, maxRounds, NETWORK, new AdamOptimizer(1e-3, 0.9, 0.999, 1e-8, 0.01));
    }

    /** What an agent sends for task {@code index} of {@code round}: a float32 gradient drawn from the task. */
    private static TaskResult floatResult(long round, int index) {
        SplittableRandom random = new SplittableRandom(round * 1000 + index);
        float[] g = new float[NETWORK.dimension()];
        for (int i = 0; i < g.length; i++) {
            g[i] = (float) random.nextGaussian();
        }
        return Records.result("net", round, round - 1, "net/" + round + "/" + index, "w" + index, new double[0], 7)
                .setGradient(ByteBuffer.wrap(TensorCodec.encode(g, TensorEncoding.FLOAT32_LE)))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setLoss(2.0 + index)
                .build();
    }

    /** Through Avro bytes, as Kafka would hold them. */
    private static <T extends SpecificRecord> T throughKafka(TopicDef<T> topic, T record) {
        var serde = topic.valueSerde(REGISTRY);
        return serde.deserializer().deserialize(topic.name(), serde.serializer().serialize(topic.name(), record));
    }

    private static final EmbeddedSchemaRegistry REGISTRY = new EmbeddedSchemaRegistry();
    private static final Topics TOPICS = new Topics();

    /**
     * The restart scenario with Adam on a float32 network: a trainer commits model version 2 and
     * the optimizer state published with it, reads part of round 3 and dies. Its successor, from
     * those two records as Kafka holds them, continues bit for bit: the same parameters, moments
     * and step count as the uninterrupted run, and the same records published.
     */
    @Test
    void adamRecoversItsMomentsAndContinuesBitForBit() {
        List<TaskResult> log = new ArrayList<>();
        List<Integer> committedOffsets = new ArrayList<>();
        List<Transition> committed = new ArrayList<>();
        TrainerState reference = TrainerState.fresh(adamJob(4), clock);
        committed.add(reference.firstTransition());
        committedOffsets.add(0);
        for (long round = 1; round <= 4; round++) {
            for (int i = 0; i < B + 1; i++) {
                TaskResult r = floatResult(round, i);
                log.add(r);
                reference.offer(r);
                if (reference.roundComplete()) {
                    clock.advance(10);
                    committed.add(reference.closeRound());
                    committedOffsets.add(log.size());
                }
            }
        }
        assertTrue(reference.finished());
        assertEquals(4, reference.optimizerMemory().step());

        Transition v2 = committed.get(2);
        assertEquals(2, v2.model().getVersion());
        assertEquals(2, v2.optimizerState().getStep());
        assertEquals(NETWORK.taskSpec().orElseThrow(), v2.model().getTask(), "every version carries the TaskSpec");
        assertEquals(2.0 + (B - 1) / 2.0, v2.model().getObjective(), "the mean loss the round's results reported");
        TrainerState recovered = TrainerState.recover(
                throughKafka(TOPICS.model(), v2.model()),
                throughKafka(TOPICS.optimizer(), v2.optimizerState()),
                adamJob(4),
                clock);
        assertEquals(2, recovered.optimizerMemory().step());
        Transition last = null;
        for (TaskResult r : log.subList(committedOffsets.get(2), log.size())) {
            recovered.offer(r);
            if (recovered.roundComplete()) {
                last = recovered.closeRound();
            }
        }
        assertTrue(recovered.finished());
        assertTrue(recovered.parameterTensor().sameBits(reference.parameterTensor()), "parameters bit for bit");
        assertTrue(recovered.optimizerMemory().sameBits(reference.optimizerMemory()), "moments and step bit for bit");
        Transition referenceLast = committed.get(4);
        assertEquals(referenceLast.model().getParameters(), last.model().getParameters());
        assertEquals(
                referenceLast.optimizerState().getState(), last.optimizerState().getState());
        assertEquals(4, last.optimizerState().getStep());

        // the same records with the moments zeroed (a restart that lost them) would differ
        TrainerState fromScratch = TrainerState.fresh(adamJob(4), clock);
        assertFalse(fromScratch.optimizerMemory().sameBits(recovered.optimizerMemory()));
    }

    @Test
    void recoverRefusesARecordThatDoesNotFitTheModel() {
        Transition v0 = TrainerState.fresh(adamJob(5), clock).firstTransition();
        ModelVersion model = v0.model();
        // the optimizer state is required for Adam
        IllegalStateException missing =
                assertThrows(IllegalStateException.class, () -> TrainerState.recover(model, null, adamJob(5), clock));
        assertTrue(missing.getMessage().contains("holds no state"), missing.getMessage());
        // another task description: other samples per task
        NetworkModel otherM =
                new NetworkModel(NetworkSpec.parse("mlp:8"), "synthetic", SyntheticDataset.split(0), 32, 8, 1);
        TrainingJob otherJob =
                new TrainingJob("net", B, "ata", 42, 5, otherM, new AdamOptimizer(1e-3, 0.9, 0.999, 1e-8, 0.01));
        IllegalArgumentException task = assertThrows(
                IllegalArgumentException.class,
                () -> TrainerState.recover(model, v0.optimizerState(), otherJob, clock));
        assertTrue(task.getMessage().contains("samples_per_task"), task.getMessage());
        // float64 parameters for a float32 model: not the very same values
        ModelVersion float64 = ModelVersion.newBuilder(model)
                .setParameters(
                        ByteBuffer.wrap(TensorCodec.encode(new double[NETWORK.dimension()], TensorEncoding.FLOAT64_LE)))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .build();
        IllegalArgumentException encoding = assertThrows(
                IllegalArgumentException.class,
                () -> TrainerState.recover(float64, v0.optimizerState(), adamJob(5), clock));
        assertTrue(encoding.getMessage().contains("FLOAT64_LE"), encoding.getMessage());
        // with everything in place it resumes
        assertEquals(
                0,
                TrainerState.recover(model, v0.optimizerState(), adamJob(5), clock)
                        .modelVersion());
    }
}
