package io.ata.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.core.RoundOutcome;
import io.ata.core.RoundPlan;
import org.junit.jupiter.api.Test;

class RoundExecutorTest {
    /** Worker i's k-th task takes durations[i][k]. */
    private static DurationSource scripted(double[][] durations) {
        int[] next = new int[durations.length];
        return w -> durations[w][next[w]++];
    }

    @Test
    void exactPlanWaitsForTheSlowestWorkersWholeQueue() {
        RoundPlan plan = new RoundPlan(3);
        plan.reset(1, 5, 3);
        plan.add(0, 3);
        plan.add(2, 2);
        RoundOutcome out = new RoundOutcome(3);
        new RoundExecutor().run(plan, scripted(new double[][] {{1, 2, 3}, {}, {4, 5}}), out, 3);
        assertEquals(9, out.roundTime(), 0, "max(1+2+3, 4+5)");
        assertEquals(15, out.busyTime(), 0);
        assertEquals(3, out.accepted(0));
        assertEquals(2, out.accepted(2));
    }

    @Test
    void greedyEndsAtTheBthResultAndChargesEveryWorkerTheWholeRound() {
        RoundPlan plan = new RoundPlan(3);
        plan.reset(1, 3, 3);
        for (int i = 0; i < 3; i++) {
            plan.add(i, RoundPlan.UNBOUNDED);
        }
        RoundOutcome out = new RoundOutcome(3);
        // completions: w0 at 2, 4, 6...; w1 at 3, 6...; w2 at 10
        new RoundExecutor().run(plan, scripted(new double[][] {{2, 2, 2, 2}, {3, 3, 3}, {10}}), out, 3);
        assertEquals(4, out.roundTime(), 0, "results at 2, 3, 4: the third ends the round");
        assertEquals(2, out.accepted(0));
        assertEquals(1, out.accepted(1));
        assertEquals(0, out.accepted(2));
        assertEquals(3 * 4, out.busyTime(), 1e-12, "GTA busy time = n x round time");
        assertEquals(4, out.cancelledTime(2), 0, "the slow worker's task was cut after 4");
        assertEquals(1, out.cancelledTime(1), 0, "w1 had started its second task at 3");
    }

    @Test
    void hedgedPlanKeepsTheFirstQuotaResultsAndSkipsUnstartedTasks() {
        RoundPlan plan = new RoundPlan(2);
        plan.reset(1, 2, 2);
        plan.add(0, 2);
        plan.add(1, 1);
        RoundOutcome out = new RoundOutcome(2);
        new RoundExecutor().run(plan, scripted(new double[][] {{1, 1}, {5}}), out, 2);
        assertEquals(2, out.roundTime(), 0);
        assertEquals(2, out.completed(0));
        assertEquals(0, out.completed(1));
        assertEquals(2, out.cancelledTime(1), 0);
        assertEquals(4, out.busyTime(), 0);
    }

    @Test
    void resultsArrivingAtTheSameInstantAsTheLastAcceptedOneAreCompletedButNotAccepted() {
        RoundPlan plan = new RoundPlan(2);
        plan.reset(1, 1, 2);
        plan.add(0, RoundPlan.UNBOUNDED);
        plan.add(1, RoundPlan.UNBOUNDED);
        RoundOutcome out = new RoundOutcome(2);
        new RoundExecutor().run(plan, scripted(new double[][] {{3, 9}, {3, 9}}), out, 2);
        assertEquals(3, out.roundTime(), 0);
        assertEquals(2, out.completed(0) + out.completed(1));
        assertEquals(1, out.accepted(0) + out.accepted(1));
    }

    @Test
    void aPlanQueueingLessThanItsQuotaIsAnError() {
        RoundPlan plan = new RoundPlan(2);
        plan.reset(1, 3, 2);
        plan.add(0, 1);
        plan.add(1, 1);
        assertThrows(
                IllegalStateException.class, () -> new RoundExecutor().run(plan, w -> 1.0, new RoundOutcome(2), 2));
    }
}
