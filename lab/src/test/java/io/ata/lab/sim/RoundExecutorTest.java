package io.ata.lab.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import org.junit.jupiter.api.Test;

class RoundExecutorTest {
    private static final int UNBOUNDED = RoundPlan.UNBOUNDED;

    /** Round 1's plan: worker i queues {@code queues[i]} tasks (none if 0); the round needs quota results. */
    static RoundPlan plan(int quota, int... queues) {
        RoundPlan plan = new RoundPlan(queues.length);
        plan.reset(1, quota, queues.length);
        for (int i = 0; i < queues.length; i++) {
            plan.add(i, queues[i]);
        }
        return plan;
    }

    /** Runs the plan where worker i's k-th task takes durations[i][k]. */
    private static RoundOutcome run(RoundPlan plan, double[][] durations) {
        int[] next = new int[durations.length];
        RoundOutcome out = new RoundOutcome(durations.length);
        new RoundExecutor().run(plan, w -> durations[w][next[w]++], out, durations.length);
        return out;
    }

    @Test
    void exactPlanWaitsForTheSlowestWorkersWholeQueue() {
        RoundOutcome out = run(plan(5, 3, 0, 2), new double[][] {{1, 2, 3}, {}, {4, 5}});
        assertEquals(9, out.roundTime(), 0, "max(1+2+3, 4+5)");
        assertEquals(15, out.busyTime(), 0);
        assertEquals(3, out.accepted(0));
        assertEquals(2, out.accepted(2));
    }

    @Test
    void greedyEndsAtTheBthResultAndChargesEveryWorkerTheWholeRound() {
        // completions: w0 at 2, 4, 6...; w1 at 3, 6...; w2 at 10
        RoundOutcome out =
                run(plan(3, UNBOUNDED, UNBOUNDED, UNBOUNDED), new double[][] {{2, 2, 2, 2}, {3, 3, 3}, {10}});
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
        RoundOutcome out = run(plan(2, 2, 1), new double[][] {{1, 1}, {5}});
        assertEquals(2, out.roundTime(), 0);
        assertEquals(2, out.completed(0));
        assertEquals(0, out.completed(1));
        assertEquals(2, out.cancelledTime(1), 0);
        assertEquals(4, out.busyTime(), 0);
    }

    @Test
    void resultsArrivingAtTheSameInstantAsTheLastAcceptedOneAreCompletedButNotAccepted() {
        RoundOutcome out = run(plan(1, UNBOUNDED, UNBOUNDED), new double[][] {{3, 9}, {3, 9}});
        assertEquals(3, out.roundTime(), 0);
        assertEquals(2, out.completed(0) + out.completed(1));
        assertEquals(1, out.accepted(0) + out.accepted(1));
    }

    @Test
    void aPlanQueueingLessThanItsQuotaIsAnError() {
        RoundPlan plan = plan(3, 1, 1);
        assertThrows(
                IllegalStateException.class, () -> new RoundExecutor().run(plan, w -> 1.0, new RoundOutcome(2), 2));
    }
}
