package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.core.RoundOutcome;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.WorkerHeartbeat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The broker's half of backup tasks: deadlines in assignments, copies on OVERDUE, losses folded. */
class JobRuntimeBackupTest {
    private static final String JOB = "job";
    private static final int BATCH = 6;
    private static final long NOW = 1_000_000;
    private static final BrokerSettings SETTINGS =
            BrokerSettings.defaults().withLiveness(Duration.ofSeconds(10), Duration.ofSeconds(1));

    /** ata-auto over w0 (5 ms), w1 and w2 (15 ms), after 30 rounds of those times. */
    private static JobRuntime learnt() {
        JobRuntime runtime = JobRuntime.create(RoundEvents.opened(JOB, 1, BATCH, "ata-auto", NOW), SETTINGS);
        runtime.syncMembership(RoundEvents.aliveWorkers(3, NOW), NOW);
        Map<String, Double> ms = Map.of("w0", 5.0, "w1", 15.0, "w2", 15.0);
        for (long k = 1; k <= 30; k++) {
            List<TaskAssignment> round = runtime.allocate(k, k - 1, NOW);
            List<RoundTiming> timings =
                    RoundEvents.completed(round, (w, t) -> ms.get(w) * (0.9 + 0.2 * (t.hashCode() & 7) / 7.0));
            runtime.fold(RoundEvents.closed(JOB, k, BATCH, timings, NOW));
        }
        return runtime;
    }

    private static TaskAssignment of(List<TaskAssignment> round, String worker) {
        return round.stream()
                .filter(a -> a.getWorkerId().equals(worker))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void assignmentsCarryTheLearntDeadlinePlusTheFloor() {
        JobRuntime runtime = learnt();
        TaskAssignment fast = of(runtime.allocate(31, 30, NOW), "w0");
        double mean = runtime.stats().mean(runtime.workerIds().indexOf("w0"));
        assertTrue(
                fast.getDeadlineMs() >= 1.5 * mean + JobRuntime.DEADLINE_FLOOR_MS
                        && fast.getDeadlineMs() <= 2 * mean + JobRuntime.DEADLINE_FLOOR_MS + 1e-9,
                "deadline " + fast.getDeadlineMs() + " for a mean of " + mean);
        assertEquals("", fast.getBackupOf());
    }

    @Test
    void anOverdueAssignmentsTasksGoToTheOthersOnceAndALossIsFolded() {
        JobRuntime runtime = learnt();
        List<TaskAssignment> round = runtime.allocate(31, 30, NOW);
        List<String> slow = of(round, "w0").getTaskIds();
        assertTrue(slow.size() >= 2, "the fast worker carries several tasks: " + slow);

        RoundEvent late = RoundEvents.overdue(JOB, 31, "w0", slow, 200, 210, NOW);
        assertNull(RoundEventRules.overdueProblem(late, runtime));
        List<TaskAssignment> copies = runtime.backUp(late, NOW + 210);
        List<String> copied =
                copies.stream().flatMap(a -> a.getTaskIds().stream()).sorted().toList();
        assertEquals(slow.stream().sorted().toList(), copied, "each missing task gets one copy");
        for (TaskAssignment copy : copies) {
            assertEquals("w0", copy.getBackupOf());
            assertTrue(!copy.getWorkerId().equals("w0"), "never back to the stuck worker");
            assertEquals(0, copy.getDeadlineMs(), "a copy has no deadline of its own");
        }
        assertTrue(runtime.backUp(late, NOW + 220).isEmpty(), "the same request again sends nothing");

        // the round closes with the copies' results (and w1, w2's own)
        List<RoundTiming> timings = RoundEvents.timingsWithCopies(round, "w0", copies);
        RoundEvent closed = RoundEvents.closed(JOB, 31, BATCH, timings, NOW);
        assertTrue(
                RoundEventRules.checkClose(closed, runtime, w -> true).clean(),
                "copies' timings are the round's tasks");
        RoundOutcome outcome = runtime.outcomeOf(closed);
        int w0 = runtime.workerIds().indexOf("w0");
        assertEquals(slow.size(), outcome.backedUp(w0));
        assertEquals(slow.size(), outcome.lostToBackup(w0));
        assertEquals(250, outcome.stuckFor(w0), 1e-9, "quiet for 200 ms when noticed at 210, the copy came at 260");

        runtime.fold(closed);
        List<TaskAssignment> next = runtime.allocate(32, 31, NOW);
        int own = next.stream()
                .filter(a -> a.getWorkerId().equals("w0"))
                .mapToInt(a -> a.getTaskIds().size())
                .sum();
        assertTrue(own <= 1, "stuck for 50 of its task times: on probation, a probe at most; got " + own);
    }

    @Test
    void anOverdueEventListingAnotherWorkersTaskIsRefused() {
        JobRuntime runtime = learnt();
        List<TaskAssignment> round = runtime.allocate(31, 30, NOW);
        String othersTask = of(round, "w1").getTaskIds().get(0);
        assertThrows(
                IllegalArgumentException.class,
                () -> runtime.backUp(RoundEvents.overdue(JOB, 31, "w0", List.of(othersTask), 200, 210, NOW), NOW));
        assertNotNull(
                RoundEventRules.overdueProblem(
                        RoundEvents.overdue(JOB, 32, "w0", List.of("job/32/0"), 200, 210, NOW), runtime),
                "a future round");
        assertNotNull(
                RoundEventRules.overdueProblem(
                        RoundEvents.overdue(JOB, 31, "w0", List.of(othersTask), Double.NaN, 210, NOW), runtime),
                "a NaN quiet time");
    }

    @Test
    void aTaskFinishedTwiceInItsRoundIsObservedOnceAndTheSecondRunIsWastedTime() {
        JobRuntime runtime = learnt();
        List<TaskAssignment> round = runtime.allocate(31, 30, NOW);
        List<RoundTiming> timings = new ArrayList<>(RoundEvents.completed(round, (w, t) -> 15.0));
        RoundTiming first = timings.get(0);
        String other = first.getWorkerId().equals("w0") ? "w1" : "w0";
        timings.add(RoundTiming.newBuilder(RoundEvents.completed(other, first.getTaskId(), 40))
                .setStatus(TimingStatus.LATE)
                .build());
        RoundEvent closed = RoundEvents.closed(JOB, 31, BATCH, timings, NOW);
        assertTrue(RoundEventRules.checkClose(closed, runtime, w -> true).clean());
        RoundOutcome outcome = runtime.outcomeOf(closed);
        assertEquals(BATCH, outcome.durationCount(), "each of the B tasks observed once");
        assertEquals(40, outcome.wastedTime(runtime.workerIds().indexOf(other)), 1e-9, "the second run: worker time");
    }

    private static List<String> workersOf(List<TaskAssignment> copies) {
        return copies.stream().map(TaskAssignment::getWorkerId).toList();
    }

    /**
     * Live, w1 was reported overdue and 21 ms later w0 was: w0's copies went to w1, the stuck
     * one, while w2 sat idle. A worker reported overdue in the round takes no copy, and with no
     * other worker left, none is sent rather than one to a stuck or dead worker.
     */
    @Test
    void aBackupNeverGoesToAWorkerReportedOverdueInTheRound() {
        JobRuntime runtime = learnt();
        List<TaskAssignment> round = runtime.allocate(31, 30, NOW);
        List<TaskAssignment> first = runtime.backUp(
                RoundEvents.overdue(JOB, 31, "w1", of(round, "w1").getTaskIds(), 190, 200, NOW), NOW + 200);
        assertTrue(
                workersOf(first).stream().noneMatch("w1"::equals),
                workersOf(first).toString());

        List<String> slow = of(round, "w0").getTaskIds();
        RoundEvent late = RoundEvents.overdue(JOB, 31, "w0", slow, 200, 221, NOW);
        assertNull(RoundEventRules.overdueProblem(late, runtime));
        List<TaskAssignment> copies = runtime.backUp(late, NOW + 221);
        assertEquals(List.of("w2"), workersOf(copies), "all to the idle w2, none to the stuck w1");
        assertEquals(slow, copies.get(0).getTaskIds());

        JobRuntime noneLeft = learnt();
        List<TaskAssignment> again = noneLeft.allocate(31, 30, NOW);
        noneLeft.backUp(RoundEvents.overdue(JOB, 31, "w1", of(again, "w1").getTaskIds(), 190, 200, NOW), NOW + 200);
        List<WorkerHeartbeat> w2Gone = new ArrayList<>(RoundEvents.aliveWorkers(3, NOW + 221));
        w2Gone.remove(2);
        noneLeft.syncMembership(w2Gone, NOW + 221);
        assertEquals(
                List.of(),
                noneLeft.backUp(
                        RoundEvents.overdue(JOB, 31, "w0", of(again, "w0").getTaskIds(), 200, 221, NOW), NOW + 221),
                "w1 is stuck and w2 is gone: no copy");
    }
}
