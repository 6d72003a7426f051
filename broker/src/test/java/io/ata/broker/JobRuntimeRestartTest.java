package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.LcbState;
import io.ata.schemas.JobState;
import io.ata.schemas.LearnedState;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.serde.AvroSerde;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a broker restart keeps of a job's learning beyond the estimated width: a worker that hung
 * and went on probation stays there (a probe at most, never a full share again), and a learned
 * state the policy refuses costs the learning, not the job.
 */
class JobRuntimeRestartTest {
    private static final String CHANGELOG = "broker-jobs-changelog";
    private static final String JOB = "job";
    private static final int BATCH = 6;
    private static final long NOW = 1_000_000;
    private static final BrokerSettings SETTINGS =
            BrokerSettings.defaults().withLiveness(Duration.ofSeconds(10), Duration.ofSeconds(1));
    private static final Map<String, Double> MS = Map.of("w0", 5.0, "w1", 15.0, "w2", 15.0);

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();

    /**
     * ata-auto over w0 (5 ms), w1 and w2 (15 ms) for 30 rounds; in round 31 the fast w0 hangs for
     * good: its tasks are backed up, the copies win, and it goes on probation.
     */
    private static JobRuntime withAHungWorkerOnProbation() {
        JobRuntime runtime = JobRuntime.create(RoundEvents.opened(JOB, 1, BATCH, "ata-auto", NOW), SETTINGS);
        for (long k = 1; k <= 30; k++) {
            play(runtime, k);
        }
        runtime.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        List<TaskAssignment> round = runtime.allocate(31, 30, NOW);
        List<String> hung = round.stream()
                .filter(a -> a.getWorkerId().equals("w0"))
                .flatMap(a -> a.getTaskIds().stream())
                .toList();
        assertTrue(hung.size() >= 2, "the fast worker carries several tasks: " + hung);
        List<TaskAssignment> copies =
                runtime.backUp(RoundEvents.overdue(JOB, 31, "w0", hung, 200, 210, NOW), NOW + 210);
        List<RoundTiming> timings = RoundEvents.timingsWithCopies(round, "w0", copies);
        runtime.fold(RoundEvents.closed(JOB, 31, BATCH, timings, NOW));
        return runtime;
    }

    /**
     * Round {@code k}: w1 and w2 complete their tasks in about their times; w0, if it has tasks,
     * is hung from round 31 on (its probe is cancelled when the round closes).
     */
    private static List<TaskAssignment> play(JobRuntime runtime, long k) {
        runtime.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        List<TaskAssignment> round = runtime.allocate(k, k - 1, NOW);
        List<RoundTiming> timings = new ArrayList<>();
        for (TaskAssignment a : round) {
            for (String t : a.getTaskIds()) {
                if (k > 30 && a.getWorkerId().equals("w0")) {
                    timings.add(RoundTiming.newBuilder(RoundEvents.completed("w0", t, 300))
                            .setStatus(TimingStatus.CANCELLED)
                            .build());
                } else {
                    timings.add(RoundEvents.completed(
                            a.getWorkerId(), t, MS.get(a.getWorkerId()) * (0.9 + 0.2 * (t.hashCode() & 7) / 7.0)));
                }
            }
        }
        runtime.fold(RoundEvents.closed(JOB, k, BATCH, timings, NOW));
        return round;
    }

    private static int tasksOf(List<TaskAssignment> round, String worker) {
        return round.stream()
                .filter(a -> a.getWorkerId().equals(worker))
                .mapToInt(a -> a.getTaskIds().size())
                .sum();
    }

    private JobState throughTheStore(JobState state) {
        AvroSerde<JobState> serde = new AvroSerde<>(registry, JobState.class);
        return serde.deserializer().deserialize(CHANGELOG, serde.serializer().serialize(CHANGELOG, state));
    }

    /**
     * A round planned ahead survives a restart: the open round and the one ahead are sent again
     * unchanged, and the round ahead opens with the assignments its agents hold, nothing new sent,
     * even on a broker restarted without pipelined allocation.
     */
    @Test
    void aRoundPlannedAheadIsKeptAcrossARestartAndOpensAsSent() {
        JobRuntime original = JobRuntime.create(
                RoundEvents.opened(JOB, 1, BATCH, "ata-auto", NOW), SETTINGS.withPipelinedAllocation(true));
        play(original, 1);
        original.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        List<TaskAssignment> open = original.allocate(2, 1, NOW);
        List<TaskAssignment> ahead = original.planAhead(3, 10, NOW);
        assertEquals(BATCH, ahead.stream().mapToInt(a -> a.getTaskIds().size()).sum());

        JobRuntime restored =
                JobRuntime.restore(throughTheStore(original.snapshot()), SETTINGS.withPipelinedAllocation(false));
        restored.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        assertEquals(idsOf(open), idsOf(restored.allocate(2, 1, NOW)), "the open round again");
        assertEquals(idsOf(ahead), idsOf(restored.planAhead(3, 0, NOW)), "the round ahead again, planned once");
        assertTrue(restored.allocate(3, 2, NOW).isEmpty(), "its agents hold it: nothing is sent");
        assertEquals(
                idsOf(ahead),
                restored.lastAllocation().stream()
                        .map(e -> e.getWorkerId() + e.getTaskIds())
                        .toList(),
                "the open round is the one planned ahead");
        assertTrue(restored.planAhead(4, 0, NOW).isEmpty(), "without a last round nothing more is planned ahead");
    }

    private static List<String> idsOf(List<TaskAssignment> assignments) {
        return assignments.stream().map(a -> a.getWorkerId() + a.getTaskIds()).toList();
    }

    @Test
    void aRestoredJobKeepsItsHungWorkerOnProbation() {
        JobRuntime original = withAHungWorkerOnProbation();
        JobState saved = throughTheStore(original.snapshot());
        assertEquals(LcbState.VERSION, saved.getLearnedState().getVersion(), "width, drift and probation");
        JobRuntime restored = JobRuntime.restore(saved, SETTINGS);
        assertEquals(saved.getLearnedState(), restored.snapshot().getLearnedState(), "the whole learned state");

        JobState widthOnly = throughTheStore(original.snapshot());
        byte[] width = LcbState.fromBytes(bytes(widthOnly.getLearnedState())).width();
        widthOnly.setLearnedState(LearnedState.newBuilder()
                .setPolicy("ata-auto")
                .setVersion(1)
                .setBytes(ByteBuffer.wrap(width))
                .build());
        JobRuntime asBefore = JobRuntime.restore(widthOnly, SETTINGS);
        asBefore.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        assertTrue(
                tasksOf(asBefore.allocate(32, 31, NOW), "w0") > 1,
                "restored as before version 2, the hung worker gets a full share again");

        int probes = 0;
        for (long k = 32; k <= 100; k++) {
            List<TaskAssignment> expected = play(original, k);
            List<TaskAssignment> got = play(restored, k);
            assertEquals(expected, got, "round " + k);
            assertTrue(tasksOf(got, "w0") <= 1, "round " + k + ": a probe at most, got " + tasksOf(got, "w0"));
            probes += tasksOf(got, "w0");
        }
        assertTrue(probes >= 3 && probes <= 8, "probes at doubling gaps over 69 rounds: " + probes);
        assertEquals(original.snapshot().getLearnedState(), restored.snapshot().getLearnedState());
    }

    @Test
    void aLearnedStateThePolicyRefusesIsDroppedAndTheJobLearnsAfresh() {
        JobRuntime original = withAHungWorkerOnProbation();
        JobState corrupt = throughTheStore(original.snapshot());
        byte[] cut = bytes(corrupt.getLearnedState());
        corrupt.setLearnedState(LearnedState.newBuilder(corrupt.getLearnedState())
                .setBytes(ByteBuffer.wrap(cut, 0, cut.length - 5).slice())
                .build());
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> JobRuntime.restore(corrupt, SETTINGS));
        assertTrue(e.getMessage().startsWith("malformed ata state: "), e.getMessage());

        List<IllegalArgumentException> refused = new ArrayList<>();
        JobRuntime relearning = JobRuntime.restoreOrRelearn(corrupt, SETTINGS, refused::add);
        assertEquals(1, refused.size());
        assertEquals(e.getMessage(), refused.get(0).getMessage());

        JobState statisticsOnly = throughTheStore(original.snapshot());
        statisticsOnly.setLearnedState(null);
        JobRuntime fresh = JobRuntime.restore(statisticsOnly, SETTINGS);
        JobState relearnt = relearning.snapshot();
        assertEquals(fresh.snapshot().getLearnedState(), relearnt.getLearnedState(), "nothing half restored");
        assertEquals(original.snapshot().getCount(), relearnt.getCount(), "the statistics are kept");
        assertEquals(original.lastClosedRound(), relearning.lastClosedRound());

        List<IllegalArgumentException> none = new ArrayList<>();
        JobRuntime.restoreOrRelearn(throughTheStore(original.snapshot()), SETTINGS, none::add);
        assertTrue(none.isEmpty(), "a good state is not refused");
        JobState unknownPolicy = throughTheStore(original.snapshot());
        unknownPolicy.setPolicy("no-such-policy");
        assertThrows(
                IllegalArgumentException.class,
                () -> JobRuntime.restoreOrRelearn(unknownPolicy, SETTINGS, none::add),
                "only the learned state is dropped; a job that cannot be rebuilt still fails");
        relearning.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        fresh.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        assertEquals(fresh.allocate(32, 31, NOW), relearning.allocate(32, 31, NOW), "it plans as a fresh policy");
    }

    private static byte[] bytes(LearnedState learned) {
        ByteBuffer b = learned.getBytes().duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
