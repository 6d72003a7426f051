package io.ata.broker;

import static io.ata.testsupport.Letters.assertReason;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.schemas.JobState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pipelined allocation through the broker's topology: round {@code k+1} is planned and sent when
 * round {@code k} opens, from the statistics folded by then, and taken over unchanged when it opens.
 */
class PipelinedAllocationTest extends BrokerTopologyFixture {
    private static final String JOB = "job";

    private void start(boolean pipelined) {
        startBroker(BrokerSettings.defaults()
                .withLiveness(Duration.ofSeconds(10), Duration.ofSeconds(1))
                .withPipelinedAllocation(pipelined));
    }

    private void heartbeats(int workers) {
        for (int i = 0; i < workers; i++) {
            this.workers.pipeInput(
                    "w" + i, Records.heartbeat("w" + i, START.toEpochMilli(), i).build());
        }
    }

    /** The trainer's OPENED event of {@code round} of a job of {@code lastRound} rounds. */
    private static RoundEvent opened(long round, int batch, String policy, long lastRound) {
        RoundEvent e = RoundEvents.opened(JOB, round, batch, policy, 0);
        e.setLastRound(lastRound);
        return e;
    }

    private void open(long round, int batch, String policy, long lastRound) {
        rounds.pipeInput(JOB, opened(round, batch, policy, lastRound));
    }

    /** Closes {@code round}: every task of {@code assignments} completed in its worker's {@code ms}. */
    private void close(long round, List<TaskAssignment> assignments, Map<String, Double> ms) {
        rounds.pipeInput(
                JOB, RoundEvents.closed(JOB, round, 0, RoundEvents.completed(assignments, (w, t) -> ms.get(w)), 0));
    }

    private List<TaskAssignment> drainTasks() {
        return new ArrayList<>(tasks.readValuesToList());
    }

    private static List<TaskAssignment> ofRound(List<TaskAssignment> assignments, long round) {
        return assignments.stream().filter(a -> a.getRound() == round).toList();
    }

    private JobState state() {
        return DriverJobs.whole(driver, BrokerSettings.defaults(), JOB);
    }

    private double plannedAhead() {
        return meters.get(BrokerCounter.ROUNDS_PLANNED_AHEAD.meterName()).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /** Round 1 opened and closed, every task done in its worker's {@code ms}: round 2 is next. */
    private void playFirstRound(int batch, String policy, long lastRound, Map<String, Double> ms) {
        open(1, batch, policy, lastRound);
        List<TaskAssignment> first = drainTasks();
        assertEquals(List.of(1L), rounds(first), "round 2 is planned when it opens: agents may lack version 0");
        close(1, first, ms);
    }

    /** Each assignment as round, worker and task ids: what a second sending must repeat. */
    private static List<String> described(List<TaskAssignment> assignments) {
        return assignments.stream()
                .map(a -> a.getRound() + ":" + a.getWorkerId() + a.getTaskIds())
                .toList();
    }

    private static List<Long> rounds(List<TaskAssignment> assignments) {
        return assignments.stream().map(TaskAssignment::getRound).distinct().toList();
    }

    private static int taskCount(List<TaskAssignment> assignments) {
        return assignments.stream().mapToInt(a -> a.getTaskIds().size()).sum();
    }

    @Test
    void eachOpenSendsTheRoundAfterItAndTakesItsOwnOverAsSent() {
        start(true);
        heartbeats(3);
        Map<String, Double> ms = Map.of("w0", 5.0, "w1", 6.0, "w2", 7.0);
        playFirstRound(6, "uta", 4, ms);
        open(2, 6, "uta", 4);
        List<TaskAssignment> sent = drainTasks();
        assertEquals(List.of(2L, 3L), rounds(sent), "round 3 sent with round 2");
        List<TaskAssignment> third = ofRound(sent, 3);
        assertEquals(6, taskCount(third));
        assertTrue(third.stream().allMatch(a -> a.getModelVersion() == 2), "round 3 computes on version 2");
        assertEquals(3, state().getAheadRound());

        close(2, ofRound(sent, 2), ms);
        open(3, 6, "uta", 4);
        assertEquals(List.of(4L), rounds(drainTasks()), "round 3's were sent already: only round 4 goes out");
        JobState state = state();
        assertEquals(3, state.getLastOpenedRound());
        assertEquals(
                third.stream().map(TaskAssignment::getTaskIds).toList(),
                state.getLastAllocation().stream().map(e -> e.getTaskIds()).toList(),
                "the open round's allocation is the one sent ahead");
        assertEquals(4, state.getAheadRound());

        close(3, third, ms);
        open(4, 6, "uta", 4);
        assertTrue(tasks.isEmpty(), "round 4 is the job's last: nothing is planned past it");
        assertEquals(0, state().getAheadRound());
        assertEquals(2, plannedAhead());
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void anOpenRoundOpenedAgainSendsItsAssignmentsAndTheRoundAheadUnchanged() {
        start(true);
        heartbeats(2);
        playFirstRound(4, "uta", 10, Map.of("w0", 5.0, "w1", 6.0));
        open(2, 4, "uta", 10);
        List<TaskAssignment> sent = drainTasks();
        open(2, 4, "uta", 10);
        List<TaskAssignment> again = drainTasks();
        assertEquals(described(sent), described(again));
        assertEquals(List.of(2L, 3L), rounds(again));
        assertEquals(1, plannedAhead(), "planned once");
    }

    @Test
    void withoutTheOptionOrWithoutALastRoundNothingIsPlannedAhead() {
        start(false);
        heartbeats(2);
        playFirstRound(4, "uta", 10, Map.of("w0", 5.0, "w1", 6.0));
        open(2, 4, "uta", 10);
        assertEquals(List.of(2L), rounds(drainTasks()));
        driver.close();

        start(true);
        heartbeats(2);
        playFirstRound(4, "uta", 0, Map.of("w0", 5.0, "w1", 6.0)); // a job without an announced end
        open(2, 4, "uta", 0);
        assertEquals(List.of(2L), rounds(drainTasks()));
        assertEquals(0, state().getAheadRound());
    }

    /**
     * Round {@code k+1} is planned after round {@code k-1} was folded: the same policy class fed the
     * same timings in that order (plan 1, observe 1, plan 2, plan 3, observe 2, plan 4, ...) plans
     * the same tasks per worker, as the simulator's one-round-stale statistics do from round 3 on.
     */
    @Test
    void theRoundAheadIsPlannedFromStatisticsOneRoundOlder() {
        start(true);
        String[] ids = {"w0", "w1", "w2", "w3"};
        Map<String, Double> ms = Map.of("w0", 10.0, "w1", 20.0, "w2", 40.0, "w3", 80.0);
        heartbeats(ids.length);
        // the simulator's side: the same policy class over the same statistics, workers indexed
        // as the broker indexes them (by first heartbeat)
        WorkerStats stats = new WorkerStats(0);
        AllocationPolicy offline = PolicyFactory.create(
                "ata-auto",
                new PolicyContext(0, 8, new double[0], ConstantConvention.PAPER, Double.NaN, Double.NaN, "test"),
                RoundEvents.SEED,
                stats);
        Map<String, Integer> index = new HashMap<>();
        for (String id : ids) {
            index.put(id, stats.addWorker());
        }
        long last = 30;
        Map<Long, List<TaskAssignment>> sent = new HashMap<>();
        for (long round = 1; round <= last; round++) {
            open(round, 8, "ata-auto", last);
            for (TaskAssignment a : drainTasks()) {
                sent.computeIfAbsent(a.getRound(), r -> new ArrayList<>()).add(a);
            }
            if (round > 1) {
                observe(offline, stats, index, round - 1, sent.get(round - 1), ms);
            }
            if (round <= 2) {
                assertPlanned(offline.plan(round).toArray(ids.length), sent.get(round), index, round);
            }
            if (round > 1 && round < last) {
                assertPlanned(offline.plan(round + 1).toArray(ids.length), sent.get(round + 1), index, round + 1);
            }
            close(round, sent.get(round), ms);
            workers.pipeInput(
                    "w0", Records.heartbeat("w0", START.toEpochMilli(), 0).build());
        }
        assertEquals(last, state().getLastClosedRound());
        assertTrue(deadLetters.isEmpty());
    }

    private static void assertPlanned(
            int[] expected, List<TaskAssignment> live, Map<String, Integer> index, long round) {
        int[] actual = new int[expected.length];
        for (TaskAssignment a : live) {
            actual[index.get(a.getWorkerId())] = a.getTaskIds().size();
        }
        assertArrayEquals(expected, actual, "round " + round);
    }

    private static void observe(
            AllocationPolicy policy,
            WorkerStats stats,
            Map<String, Integer> index,
            long round,
            List<TaskAssignment> assignments,
            Map<String, Double> ms) {
        RoundOutcome outcome = new RoundOutcome(index.size());
        outcome.reset(round, index.size());
        for (RoundTiming t : RoundEvents.completed(assignments, (w, task) -> ms.get(w))) {
            outcome.addCompleted(index.get(t.getWorkerId()), t.getComputeMs(), true);
        }
        outcome.foldInto(stats);
        policy.observe(outcome);
    }

    @Test
    void backupsAreForTheOpenRoundOnlyNeverForTheRoundAhead() {
        start(true);
        heartbeats(3);
        playFirstRound(6, "uta", 5, Map.of("w0", 5.0, "w1", 6.0, "w2", 7.0));
        open(2, 6, "uta", 5);
        List<TaskAssignment> sent = drainTasks();
        List<String> ownRound = tasksOf(ofRound(sent, 2), "w0");
        List<String> ahead = tasksOf(ofRound(sent, 3), "w0");
        rounds.pipeInput(JOB, RoundEvents.overdue(JOB, 2, "w0", ownRound, 400, 500, 0));
        List<TaskAssignment> copies = drainTasks();
        assertTrue(
                !copies.isEmpty()
                        && copies.stream()
                                .allMatch(c ->
                                        c.getRound() == 2 && c.getBackupOf().equals("w0")),
                copies.toString());

        rounds.pipeInput(JOB, RoundEvents.overdue(JOB, 2, "w0", ahead, 400, 500, 0));
        assertTrue(tasks.isEmpty(), "no copy of a task of the round ahead");
        assertReason(deadLetters.readValue(), "is not one worker w0 holds in the open round");
        rounds.pipeInput(JOB, RoundEvents.overdue(JOB, 3, "w0", ahead, 400, 500, 0));
        assertTrue(tasks.isEmpty(), "round 3 is not open yet");
        assertEquals(1, deadLetters.readValuesToList().size(), "its OVERDUE is out of the window");
    }

    private static List<String> tasksOf(List<TaskAssignment> assignments, String worker) {
        return assignments.stream()
                .filter(a -> a.getWorkerId().equals(worker))
                .findFirst()
                .orElseThrow()
                .getTaskIds();
    }

    @Test
    void aRoundPlannedAheadOpensWhileNoWorkerIsLive() {
        start(true);
        heartbeats(2);
        Map<String, Double> ms = Map.of("w0", 5.0, "w1", 6.0);
        playFirstRound(4, "uta", 5, ms);
        open(2, 4, "uta", 5);
        List<TaskAssignment> sent = drainTasks();
        close(2, ofRound(sent, 2), ms);
        driver.advanceWallClockTime(Duration.ofSeconds(11)); // every heartbeat is older than the timeout
        open(3, 4, "uta", 5);
        assertTrue(tasks.isEmpty(), "nothing new: round 3 is at its agents, and no one is live to plan round 4");
        assertEquals(3, state().getLastOpenedRound(), "opened, not deferred: its tasks were sent");
        assertEquals(0, state().getPendingRound());
        assertEquals(0, state().getAheadRound());
    }

    @Test
    void anOpenedEventWhoseLastRoundIsBeforeItIsRefused() {
        start(true);
        heartbeats(1);
        open(3, 4, "uta", 2);
        assertTrue(tasks.isEmpty());
        assertReason(deadLetters.readValue(), "OPENED with last round 2");
    }
}
