package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
        runtime.syncMembership(Records.aliveWorkers(3, NOW), NOW);
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

    /**
     * uta (no deadlines) over {@code n} live workers w0..w(n-1), a task of wi taking 10 x (i + 1)
     * ms, after 3 rounds; round 4 allocated at {@link #NOW}: 2 tasks each.
     */
    private static JobRuntime uniform(int n) {
        JobRuntime runtime = JobRuntime.create(RoundEvents.opened(JOB, 1, 2 * n, "uta", NOW), SETTINGS);
        runtime.syncMembership(Records.aliveWorkers(n, NOW), NOW);
        for (long k = 1; k <= 3; k++) {
            List<TaskAssignment> round = runtime.allocate(k, k - 1, NOW);
            List<RoundTiming> timings =
                    RoundEvents.completed(round, (w, t) -> 10.0 * (1 + Integer.parseInt(w.substring(1))));
            runtime.fold(RoundEvents.closed(JOB, k, 2 * n, timings, NOW));
        }
        runtime.allocate(4, 3, NOW);
        return runtime;
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
        List<WorkerHeartbeat> w2Gone = new ArrayList<>(Records.aliveWorkers(3, NOW + 221));
        w2Gone.remove(2);
        noneLeft.syncMembership(w2Gone, NOW + 221);
        assertEquals(
                List.of(),
                noneLeft.backUp(
                        RoundEvents.overdue(JOB, 31, "w0", of(again, "w0").getTaskIds(), 200, 221, NOW), NOW + 221),
                "w1 is stuck and w2 is gone: no copy");
    }

    @Test
    void anOverdueUnderAPolicyWithoutDeadlinesGetsCopiesOnTheSoonestWorker() {
        JobRuntime runtime = uniform(4);
        List<String> w3 = new ArrayList<>(runtime.heldBy("w3"));
        Collections.sort(w3);
        RoundEvent late = RoundEvents.overdue(JOB, 4, "w3", w3, 400, 500, NOW);
        assertNull(RoundEventRules.overdueProblem(late, runtime));

        List<TaskAssignment> copies = runtime.backUp(late, NOW + 500);

        // all idle by now; w0 (10 ms) takes the first, then 2 x 10 ms still beats w1's 20 ms
        assertEquals(List.of("w0"), workersOf(copies));
        assertEquals(w3, copies.get(0).getTaskIds());
        assertEquals("w3", copies.get(0).getBackupOf());
    }

    @Test
    void aStuckCopyGetsAFurtherCopyOnAThirdWorker() {
        JobRuntime runtime = uniform(4);
        String task = JOB + "/4/0"; // w0's
        assertTrue(runtime.heldBy("w0").contains(task));
        List<TaskAssignment> first =
                runtime.backUp(RoundEvents.overdue(JOB, 4, "w0", List.of(task), 400, 500, NOW), NOW + 500);
        assertEquals(List.of("w1"), workersOf(first));

        RoundEvent copyStuck = RoundEvents.overdue(JOB, 4, "w1", List.of(task), 500, 1000, NOW);
        assertNull(RoundEventRules.overdueProblem(copyStuck, runtime), "the copy's worker may report it");
        List<TaskAssignment> second = runtime.backUp(copyStuck, NOW + 1000);

        assertEquals(List.of("w2"), workersOf(second), "neither w0 nor w1, which hold it");
        assertEquals("w0", second.get(0).getBackupOf(), "a copy names the task's original worker");
        assertEquals(List.of(task), second.get(0).getTaskIds());
        assertNotNull(
                RoundEventRules.overdueProblem(
                        RoundEvents.overdue(JOB, 4, "w3", List.of(task), 500, 1000, NOW), runtime),
                "w3 holds no copy of it");
    }

    /** Each report sends at most one copy of a task, and a task has at most three: a flood cannot multiply work. */
    @Test
    void copiesOfATaskAreCapped() {
        JobRuntime runtime = uniform(6);
        String task = JOB + "/4/0"; // w0's
        List<String> holders = new ArrayList<>(List.of("w0"));
        for (int flood = 0; flood < 5; flood++) {
            for (String h : List.copyOf(holders)) {
                for (TaskAssignment copy :
                        runtime.backUp(RoundEvents.overdue(JOB, 4, h, List.of(task), 500, 500, NOW), NOW + 500)) {
                    holders.add(copy.getWorkerId());
                }
            }
        }
        assertEquals(1 + JobRuntime.MAX_COPIES_PER_TASK, holders.size(), holders.toString());
        assertEquals(holders.size(), Set.copyOf(holders).size(), "never twice to one worker");
        long copies = runtime.lastAllocation().stream()
                .filter(e -> !e.getBackupOf().isEmpty())
                .count();
        assertEquals(JobRuntime.MAX_COPIES_PER_TASK, copies);
    }

    /**
     * w0's task was copied to w1, w1's copy to w2, and w2's copy won: each task observed once, w0
     * and w1 backed up once each and both lost it, the later runs are worker time. When w0's own
     * run wins instead, only w1 lost.
     */
    @Test
    void outcomeOfAccountsATaskWithTwoCopiesOnce() {
        for (String winner : List.of("w2", "w0")) {
            JobRuntime runtime = uniform(4);
            String task = JOB + "/4/0";
            runtime.backUp(RoundEvents.overdue(JOB, 4, "w0", List.of(task), 400, 500, NOW), NOW + 500);
            runtime.backUp(RoundEvents.overdue(JOB, 4, "w1", List.of(task), 300, 800, NOW), NOW + 800);

            List<RoundTiming> timings = new ArrayList<>();
            for (int i = 1; i < 8; i++) {
                String t = JOB + "/4/" + i;
                String w = runtime.heldBy("w0").contains(t) ? "w0" : i < 4 ? "w1" : i < 6 ? "w2" : "w3";
                timings.add(RoundEvents.completed(w, t, 10));
            }
            timings.add(RoundTiming.newBuilder(RoundEvents.completed(winner, task, 30))
                    .setArrivalMs(1000)
                    .build());
            for (String loser : List.of("w1", "w0", "w2")) {
                if (!loser.equals(winner)) {
                    timings.add(RoundTiming.newBuilder(RoundEvents.completed(loser, task, 25))
                            .setStatus(TimingStatus.LATE)
                            .setArrivalMs(1100)
                            .build());
                }
            }
            RoundEvent closed = RoundEvents.closed(JOB, 4, 8, timings, NOW);
            assertTrue(RoundEventRules.checkClose(closed, runtime, w -> true).clean());
            RoundOutcome outcome = runtime.outcomeOf(closed);
            int w0 = runtime.workerIds().indexOf("w0");
            int w1 = runtime.workerIds().indexOf("w1");
            int w2 = runtime.workerIds().indexOf("w2");

            assertEquals(8, outcome.durationCount(), winner + ": each task observed once");
            assertEquals(1, outcome.backedUp(w0), winner);
            assertEquals(1, outcome.backedUp(w1), winner);
            assertEquals(0, outcome.backedUp(w2), winner);
            assertEquals(1, outcome.lostToBackup(w1), winner);
            assertEquals(500, outcome.stuckFor(w1), 1e-9, "quiet 300 ms when noticed at 800, the winner came at 1000");
            assertEquals(0, outcome.lostToBackup(w2), winner);
            if (winner.equals("w2")) {
                assertEquals(1, outcome.lostToBackup(w0));
                assertEquals(900, outcome.stuckFor(w0), 1e-9, "quiet 400 ms when noticed at 500");
                assertEquals(25, outcome.wastedTime(w0), 1e-9);
            } else {
                assertEquals(0, outcome.lostToBackup(w0), "its own run won");
                assertEquals(25, outcome.wastedTime(w2), 1e-9);
            }
            assertEquals(25, outcome.wastedTime(w1), 1e-9);
        }
    }

    /**
     * A broker restarted mid-round keeps the copies (they are saved with the round's allocation):
     * opening the round again re-emits them, and the workers they back up stay out of further
     * copies, though the reports themselves were in memory only.
     */
    @Test
    void aRoundOpenedAgainAfterARestartReemitsItsCopiesAndKeepsTheirWorkersOut() {
        JobRuntime runtime = uniform(4);
        String task = JOB + "/4/0";
        runtime.backUp(RoundEvents.overdue(JOB, 4, "w0", List.of(task), 400, 500, NOW), NOW + 500);

        JobRuntime restored = JobRuntime.restore(runtime.snapshot(), SETTINGS);
        restored.syncMembership(Records.aliveWorkers(4, NOW + 600), NOW + 600);
        List<TaskAssignment> again = restored.allocate(4, 3, NOW + 600);
        assertEquals(5, again.size(), "four assignments and the copy");
        TaskAssignment copy = again.get(4);
        assertEquals("w1", copy.getWorkerId());
        assertEquals("w0", copy.getBackupOf());
        assertEquals(0.0, copy.getDeadlineMs());

        List<TaskAssignment> further =
                restored.backUp(RoundEvents.overdue(JOB, 4, "w1", List.of(task), 500, 1100, NOW), NOW + 1100);
        assertEquals(List.of("w2"), workersOf(further));
        List<String> w2Tasks = new ArrayList<>(restored.heldBy("w2"));
        w2Tasks.remove(task);
        List<TaskAssignment> ofW2 =
                restored.backUp(RoundEvents.overdue(JOB, 4, "w2", w2Tasks, 500, 1200, NOW), NOW + 1200);
        assertTrue(workersOf(ofW2).stream().noneMatch("w0"::equals), "w0 is still reported: " + workersOf(ofW2));
    }
}
