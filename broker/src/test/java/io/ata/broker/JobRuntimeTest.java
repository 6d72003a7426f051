package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeviceKind;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The broker's view of one job, without Kafka: allocation to the partitions each worker owns,
 * idempotent re-opening, deferred rounds, folding CLOSED events exactly once, and membership from
 * heartbeats.
 */
class JobRuntimeTest {
    private static final String JOB = "job";
    private static final int BATCH = 6;
    private static final long NOW = 1_000_000;
    private static final BrokerSettings SETTINGS =
            BrokerSettings.defaults().withLiveness(Duration.ofSeconds(10), Duration.ofSeconds(1));

    /** w0 owns partitions 0 and 3, w1 owns 1, w2 owns 2 and 4. */
    private static final Map<String, List<Integer>> OWNED = Map.of(
            "w0", List.of(3, 0), // unsorted on purpose: the runtime sorts a worker's partitions
            "w1", List.of(1),
            "w2", List.of(2, 4));

    private static RoundEvent opened(String policy) {
        return RoundEvents.opened(JOB, 1, BATCH, policy, NOW);
    }

    private static WorkerHeartbeat heartbeat(String worker, WorkerStatus status, List<Integer> partitions, long atMs) {
        return Records.heartbeat(worker, atMs, partitions)
                .setHost("h")
                .setDevice(DeviceKind.CPU)
                .setStatus(status)
                .build();
    }

    private static List<WorkerHeartbeat> alive(Map<String, List<Integer>> owned) {
        List<WorkerHeartbeat> beats = new ArrayList<>();
        new TreeMap<>(owned).forEach((w, p) -> beats.add(heartbeat(w, WorkerStatus.ALIVE, p, NOW)));
        return beats;
    }

    /** The CLOSED event of {@code round} with one completed timing per task of its assignments. */
    private static RoundEvent closed(long round, List<TaskAssignment> assignments, Map<String, Double> msPerWorker) {
        return closed(round, RoundEvents.completed(assignments, (worker, task) -> msPerWorker.get(worker)));
    }

    private static RoundEvent closed(long round, List<RoundTiming> timings) {
        return RoundEvents.closed(JOB, round, BATCH, timings, NOW);
    }

    private static JobRuntime runtimeWith(String policy, Map<String, List<Integer>> owned) {
        JobRuntime runtime = JobRuntime.create(opened(policy), SETTINGS);
        runtime.syncMembership(alive(owned), NOW);
        return runtime;
    }

    private static List<String> taskIds(List<TaskAssignment> assignments) {
        return assignments.stream().flatMap(a -> a.getTaskIds().stream()).toList();
    }

    private static int index(JobRuntime runtime, String worker) {
        return runtime.workerIds().indexOf(worker);
    }

    @Test
    void aRoundGoesToLiveWorkersEachOnAPartitionItOwns() {
        JobRuntime runtime = runtimeWith("uta", OWNED);

        for (long round = 1; round <= 4; round++) {
            List<TaskAssignment> assignments = runtime.allocate(round, round - 1, NOW + round);

            assertEquals(
                    OWNED.keySet(),
                    Set.copyOf(assignments.stream()
                            .map(TaskAssignment::getWorkerId)
                            .toList()));
            for (TaskAssignment a : assignments) {
                List<Integer> owned =
                        OWNED.get(a.getWorkerId()).stream().sorted().toList();
                // a worker's partitions take turns, round by round
                assertEquals(owned.get((int) (round % owned.size())), a.getPartition(), a.toString());
                assertEquals(JOB, a.getJob());
                assertEquals(round, a.getRound());
                assertEquals(round - 1, a.getModelVersion());
                assertEquals(BATCH, a.getBatch());
                assertEquals("uta", a.getPolicy());
                assertEquals(NOW + round, a.getCreatedMs());
            }
            // uta: B tasks split evenly, each id once, numbered from 0 within the round
            assertEquals(
                    List.of(2, 2, 2),
                    assignments.stream().map(a -> a.getTaskIds().size()).toList());
            List<String> ids = taskIds(assignments);
            Set<String> expected = new HashSet<>();
            for (int t = 0; t < BATCH; t++) {
                expected.add(JOB + "/" + round + "/" + t);
            }
            assertEquals(expected, Set.copyOf(ids));
            assertEquals(BATCH, ids.size());
            assertEquals(round, runtime.lastOpenedRound());
        }
    }

    @Test
    void aGreedyRoundGivesEveryLiveWorkerAWholeBatch() {
        List<TaskAssignment> assignments = runtimeWith("gta", OWNED).allocate(1, 0, NOW);

        assertEquals(3, assignments.size());
        assertTrue(assignments.stream().allMatch(a -> a.getTaskIds().size() == BATCH), assignments.toString());
        assertEquals(3 * BATCH, Set.copyOf(taskIds(assignments)).size(), "task ids are distinct across workers");
    }

    @Test
    void reopeningTheLastRoundReemitsTheSameTasksAndAnOlderRoundGivesNothing() {
        JobRuntime runtime = runtimeWith("ata-auto", OWNED);
        List<TaskAssignment> first = runtime.allocate(1, 0, NOW);
        List<TaskAssignment> second = runtime.allocate(2, 1, NOW + 1);

        // w1 died meanwhile: the stored allocation is repeated all the same, with the new time
        runtime.syncMembership(alive(Map.of("w0", OWNED.get("w0"), "w2", OWNED.get("w2"))), NOW + 2);
        List<TaskAssignment> again = runtime.allocate(2, 1, NOW + 2);

        assertEquals(describe(second), describe(again));
        assertTrue(again.stream().allMatch(a -> a.getCreatedMs() == NOW + 2));
        assertTrue(runtime.alreadyOpened(1));
        assertTrue(runtime.alreadyOpened(2));
        assertFalse(runtime.alreadyOpened(3));
        assertEquals(List.of(), runtime.allocate(1, 0, NOW + 3), "round 1 is over: " + first);
        assertEquals(2, runtime.lastOpenedRound());
    }

    @Test
    void aRoundOpenedWithNoLiveWorkerIsDeferredUntilOneIsLive() {
        JobRuntime runtime = JobRuntime.create(opened("ata-auto"), SETTINGS);
        assertFalse(runtime.hasLiveWorker());
        assertThrows(IllegalStateException.class, () -> runtime.allocate(1, 0, NOW));

        runtime.deferOpen(1, 0);
        assertTrue(runtime.hasPendingOpen());
        assertEquals(List.of(), runtime.allocatePending(NOW), "still no live worker");
        assertTrue(runtime.hasPendingOpen(), "a round is delayed, never dropped");

        assertTrue(runtime.syncMembership(alive(Map.of("w1", List.of(1))), NOW + 1));
        List<TaskAssignment> assignments = runtime.allocatePending(NOW + 1);

        assertEquals(1, assignments.size());
        TaskAssignment a = assignments.get(0);
        assertEquals("w1", a.getWorkerId());
        assertEquals(1, a.getPartition());
        assertEquals(1, a.getRound());
        assertEquals(0, a.getModelVersion());
        assertEquals(BATCH, a.getTaskIds().size());
        assertFalse(runtime.hasPendingOpen());
        assertEquals(1, runtime.lastOpenedRound());
        assertEquals(List.of(), runtime.allocatePending(NOW + 2), "allocated once");
    }

    @Test
    void aClosedEventIsFoldedExactlyOnce() {
        JobRuntime runtime = runtimeWith("ata-auto", OWNED);
        List<TaskAssignment> round1 = runtime.allocate(1, 0, NOW);
        RoundEvent closed = closed(1, round1, Map.of("w0", 10.0, "w1", 20.0, "w2", 40.0));

        assertTrue(runtime.fold(closed));
        long[] counts = counts(runtime);
        double[] sums = sums(runtime);
        assertFalse(runtime.fold(closed), "the same CLOSED event again");

        assertEquals(1, runtime.lastClosedRound());
        assertEquals(BATCH, Arrays.stream(counts).sum());
        for (TaskAssignment a : round1) {
            int i = index(runtime, a.getWorkerId());
            assertEquals(a.getTaskIds().size(), counts[i], a.getWorkerId());
        }
        assertEquals(Arrays.toString(counts), Arrays.toString(counts(runtime)), "counts unchanged");
        assertEquals(Arrays.toString(sums), Arrays.toString(sums(runtime)), "sums unchanged");
        assertFalse(
                runtime.fold(closed(1, List.of(RoundEvents.completed("w0", JOB + "/1/99", 5.0)))), "an older round");
    }

    @Test
    void observedTasksNeverGoDownWhenDriftHandlingRestartsAWorkersStatistics() {
        JobRuntime runtime = runtimeWith("ata-auto", OWNED);
        long folded = 0;
        for (long round = 1; round <= 40; round++) {
            List<TaskAssignment> assignments = runtime.allocate(round, round - 1, NOW);
            // w0 is 100x slower from round 31 on: its statistics restart, its observed tasks go on
            double w0 = round <= 30 ? 10.0 : 1000.0;
            runtime.fold(closed(round, assignments, Map.of("w0", w0, "w1", 20.0, "w2", 40.0)));
            folded += BATCH;
        }
        List<Long> observed = runtime.snapshot().getObserved();
        assertEquals(folded, observed.stream().mapToLong(Long::longValue).sum(), "every folded task, once");
        int w0 = index(runtime, "w0");
        assertTrue(
                observed.get(w0) > runtime.stats().count(w0),
                "w0's statistics restarted (" + runtime.stats().count(w0) + ") below its observed tasks "
                        + observed.get(w0));
        assertEquals(
                observed,
                JobRuntime.restore(runtime.snapshot(), SETTINGS).snapshot().getObserved());
    }

    @ParameterizedTest
    @ValueSource(doubles = {-1.0, Double.NaN, Double.POSITIVE_INFINITY, 1e300})
    void anOutOfRangeTimingThatReachesFoldFoldsNothing(double computeMs) {
        JobRuntime runtime = runtimeWith("ata-auto", OWNED);
        runtime.allocate(1, 0, NOW);
        RoundEvent closed = closed(
                1,
                List.of(
                        RoundEvents.completed("w0", JOB + "/1/0", 10.0),
                        RoundEvents.completed("w1", JOB + "/1/1", computeMs)));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> runtime.fold(closed));

        assertTrue(e.getMessage().contains(JOB + "/1/1"), e.getMessage());
        assertEquals(0, runtime.lastClosedRound());
        assertEquals(0, Arrays.stream(counts(runtime)).sum(), "not even the valid timing is folded");
    }

    @Test
    void membershipFollowsTheHeartbeats() {
        long timeout = SETTINGS.livenessTimeoutMs();
        JobRuntime runtime = JobRuntime.create(opened("ata-auto"), SETTINGS);

        List<WorkerHeartbeat> heartbeats = List.of(
                heartbeat("alive", WorkerStatus.ALIVE, List.of(0), NOW),
                heartbeat("just-in-time", WorkerStatus.ALIVE, List.of(1), NOW - timeout),
                heartbeat("silent", WorkerStatus.ALIVE, List.of(2), NOW - timeout - 1),
                heartbeat("leaving", WorkerStatus.LEAVING, List.of(3), NOW),
                heartbeat("no-partition", WorkerStatus.ALIVE, List.of(), NOW));
        assertTrue(runtime.syncMembership(heartbeats, NOW));

        assertEquals(List.of("alive", "just-in-time", "silent", "leaving", "no-partition"), runtime.workerIds());
        assertEquals(List.of(true, true, false, false, false), active(runtime));
        assertTrue(runtime.hasLiveWorker());
        assertEquals(
                Set.of("alive", "just-in-time"),
                Set.copyOf(runtime.allocate(1, 0, NOW).stream()
                        .map(TaskAssignment::getWorkerId)
                        .toList()),
                "only live workers get tasks");

        // the same heartbeats again: nothing changes
        assertFalse(runtime.syncMembership(heartbeats, NOW));

        // later: "just-in-time" times out, and a worker missing from the heartbeats is not live either
        assertTrue(runtime.syncMembership(
                List.of(
                        heartbeat("alive", WorkerStatus.ALIVE, List.of(0), NOW + 1),
                        heartbeat("just-in-time", WorkerStatus.ALIVE, List.of(1), NOW - timeout)),
                NOW + 1));
        assertEquals(List.of(true, false, false, false, false), active(runtime));

        assertTrue(runtime.syncMembership(List.of(), NOW + 2));
        assertFalse(runtime.hasLiveWorker());
    }

    @Test
    void aNewWorkerEntersUnexploredAndIsExploredNext() {
        Map<String, List<Integer>> two = Map.of("w0", List.of(0), "w1", List.of(1));
        Map<String, Double> ms = Map.of("w0", 10.0, "w1", 30.0, "w2", 5.0);
        JobRuntime runtime = runtimeWith("ata-auto", two);
        for (long round = 1; round <= 5; round++) {
            runtime.fold(closed(round, runtime.allocate(round, round - 1, NOW), ms));
        }

        Map<String, List<Integer>> three = new TreeMap<>(two);
        three.put("w2", List.of(2));
        assertTrue(runtime.syncMembership(alive(three), NOW));

        int w2 = index(runtime, "w2");
        assertEquals(2, w2, "a newcomer is appended: the others keep their indices");
        assertEquals(0, runtime.stats().count(w2), "no observation of the newcomer");
        assertTrue(runtime.stats().isActive(w2));
        List<TaskAssignment> next = runtime.allocate(6, 5, NOW);
        assertTrue(
                next.stream().anyMatch(a -> a.getWorkerId().equals("w2") && a.getPartition() == 2),
                "the unexplored newcomer is explored in the next round: " + next);
        assertEquals(BATCH, taskIds(next).size(), "ata-auto uses exactly B tasks");
    }

    /**
     * The CLOSED event of {@code round}: each task's time is its worker's mean times a spread fixed by
     * its id. The means are close, so that what ata-auto learned of the spread decides between them.
     */
    private static RoundEvent closedWithSpread(long round, List<TaskAssignment> assignments) {
        Map<String, Double> mean = Map.of("w0", 10.0, "w1", 12.0, "w2", 15.0);
        return closed(round, RoundEvents.completed(assignments, (worker, task) -> {
            double spread = 0.25 + (task.hashCode() & 0xff) / 128.0; // 0.25 .. 2.25
            return mean.get(worker) * spread;
        }));
    }

    @Test
    void aSnapshotRestoresTheSameJob() {
        // enough rounds (180 timings) for ata-auto to have estimated its width from them
        JobRuntime original = runtimeWith("ata-auto", OWNED);
        for (long round = 1; round <= 30; round++) {
            original.fold(closedWithSpread(round, original.allocate(round, round - 1, NOW)));
        }
        List<TaskAssignment> open = original.allocate(31, 30, NOW);

        JobRuntime restored = JobRuntime.restore(original.snapshot(), SETTINGS);
        restored.syncMembership(alive(OWNED), NOW); // partitions come from the heartbeats, not the snapshot

        assertEquals(JOB, restored.job());
        assertEquals("ata-auto", restored.policyName());
        assertEquals(original.workerIds(), restored.workerIds());
        assertEquals(30, restored.lastClosedRound());
        assertEquals(31, restored.lastOpenedRound());
        assertEquals(Arrays.toString(counts(original)), Arrays.toString(counts(restored)));
        assertEquals(Arrays.toString(sums(original)), Arrays.toString(sums(restored)));
        assertEquals(
                describe(open), describe(restored.allocate(31, 30, NOW)), "the open round is re-emitted as it was");

        // fed the same closes, both choose every following round the same way
        for (long round = 31; round <= 60; round++) {
            List<TaskAssignment> assignments = round == 31 ? open : original.allocate(round, round - 1, NOW);
            if (round > 31) {
                assertEquals(
                        describe(assignments),
                        describe(restored.allocate(round, round - 1, NOW)),
                        "round " + round + ": same statistics and learned state, same choice");
            }
            RoundEvent close = closedWithSpread(round, assignments);
            original.fold(close);
            restored.fold(close);
        }
    }

    private static List<String> describe(List<TaskAssignment> assignments) {
        return assignments.stream()
                .map(a -> a.getWorkerId() + "@" + a.getPartition() + a.getTaskIds())
                .toList();
    }

    private static List<Boolean> active(JobRuntime runtime) {
        List<Boolean> out = new ArrayList<>();
        for (int i = 0; i < runtime.workerIds().size(); i++) {
            out.add(runtime.stats().isActive(i));
        }
        return out;
    }

    private static long[] counts(JobRuntime runtime) {
        long[] out = new long[runtime.workerIds().size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = runtime.stats().count(i);
        }
        return out;
    }

    private static double[] sums(JobRuntime runtime) {
        double[] out = new double[runtime.workerIds().size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = runtime.stats().sum(i);
        }
        return out;
    }
}
