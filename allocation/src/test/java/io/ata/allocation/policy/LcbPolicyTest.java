package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The exploration rule of spec section 3 and the exploitation step, through ATA itself. */
class LcbPolicyTest {
    private static final ConfidenceWidth HUGE = ConfidenceWidth.absolute(1e12, "test");
    private static final ConfidenceWidth NONE = ConfidenceWidth.absolute(0, "test");

    private static int total(RoundPlan plan, int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += plan.tasks(i);
        }
        return sum;
    }

    @Test
    void roundOneGivesOneTaskEachToBRandomUnexploredWorkers() {
        Set<Integer> chosenOverSeeds = new HashSet<>();
        for (long seed = 0; seed < 30; seed++) {
            LcbPolicy ata = new LcbPolicy("ata", new WorkerStats(51), HUGE, 23, 23, seed);
            RoundPlan plan = ata.plan(1);
            assertEquals(23, plan.supportSize(), "23 distinct workers");
            for (int k = 0; k < plan.supportSize(); k++) {
                assertEquals(1, plan.tasks(plan.supportWorker(k)));
                chosenOverSeeds.add(plan.supportWorker(k));
            }
        }
        assertTrue(chosenOverSeeds.size() > 45, "the choice is random: nearly every worker gets picked over seeds");
    }

    @Test
    void withFewerWorkersThanTasksRoundOneSpreadsOverTheUnexplored() {
        LcbPolicy ata = new LcbPolicy("ata", new WorkerStats(5), HUGE, 23, 23, 1);
        RoundPlan plan = ata.plan(1);
        assertEquals(23, total(plan, 5));
        for (int i = 0; i < 5; i++) {
            // one each from step 1, then 18 spread: 3 or 4 more
            assertTrue(plan.tasks(i) == 4 || plan.tasks(i) == 5, "worker " + i + " got " + plan.tasks(i));
        }
    }

    @Test
    void unexploredFirstThenRemainderSpreadOverExploredZeroScoreWorkers() {
        WorkerStats stats = new WorkerStats(10);
        for (int i = 0; i < 7; i++) {
            stats.record(i, 10 + i); // explored; with a huge width every score is <= 0
        }
        LcbPolicy ata = new LcbPolicy("ata", stats, HUGE, 12, 12, 3);
        RoundPlan plan = ata.plan(2);
        for (int i = 7; i < 10; i++) {
            assertEquals(1, plan.tasks(i), "each unexplored worker gets exactly one task");
        }
        // 9 left over 7 zero-score workers: floor(9/7) = 1 each and 2 of them one more
        int twos = 0;
        for (int i = 0; i < 7; i++) {
            assertTrue(plan.tasks(i) == 1 || plan.tasks(i) == 2);
            twos += plan.tasks(i) == 2 ? 1 : 0;
        }
        assertEquals(2, twos);
    }

    @Test
    void positiveScoreWorkersGetNothingWhileZeroScoreWorkersExist() {
        WorkerStats stats = MeasuredFleet.of(3, 10_000, 1.0); // worker 0 well known and fast: positive score
        stats.record(1, 50); // one sample: zero score
        stats.record(2, 60);
        // c = 20 at round 10 (L = ln 200): 10,000 samples give 1 - 20*0.0235 > 0, one sample of 50 gives < 0
        ConfidenceWidth width = ConfidenceWidth.absolute(20, "test");
        LcbPolicy ata = new LcbPolicy("ata", stats, width, 6, 6, 0);
        RoundPlan plan = ata.plan(10);
        assertEquals(0, plan.tasks(0));
        assertEquals(3, plan.tasks(1));
        assertEquals(3, plan.tasks(2));
    }

    @Test
    void aSingleZeroScoreWorkerReceivesEveryRemainingTask() {
        WorkerStats stats = MeasuredFleet.of(3, 10_000, 1.0, 2.0);
        stats.record(2, 100);
        LcbPolicy ata = new LcbPolicy("ata", stats, ConfidenceWidth.absolute(20, "test"), 7, 7, 0);
        RoundPlan plan = ata.plan(10);
        assertArrayEquals(new int[] {0, 0, 7}, plan.toArray(3), "the method as run: all B' on it");
    }

    @Test
    void aWorkerJoiningALearnedFleetCostsOneTaskNotTheRound() {
        WorkerStats stats = MeasuredFleet.of(3, 10_000, 1.0, 2.0, 3.0);
        int joined = stats.addWorker();
        LcbPolicy ata = new LcbPolicy("ata", stats, NONE, 11, 11, 0);
        RoundPlan plan = ata.plan(100);
        assertEquals(1, plan.tasks(joined));
        int[] rest = new int[3];
        new AllocationSolver().solve(new double[] {1, 2, 3}, 3, 10, rest);
        assertArrayEquals(rest, new int[] {plan.tasks(0), plan.tasks(1), plan.tasks(2)});
    }

    @Test
    void exploitsWithTheExactSolverOnceEveryScoreIsPositive() {
        double[] means = {1, 2, 4, 8};
        WorkerStats stats = MeasuredFleet.of(4, 100, means);
        LcbPolicy ata = new LcbPolicy("ata", stats, NONE, 10, 10, 0);
        RoundPlan plan = ata.plan(50);
        assertTrue(ata.lastPlanExploited());
        int[] expected = new int[4];
        new AllocationSolver().solve(means, 4, 10, expected);
        assertArrayEquals(expected, plan.toArray(4));
        assertTrue(plan.isExact());
    }

    @Test
    void inactiveWorkersGetNoTasks() {
        WorkerStats stats = new WorkerStats(4);
        stats.setActive(1, false);
        LcbPolicy ata = new LcbPolicy("ata", stats, HUGE, 8, 8, 0);
        for (long round = 1; round < 20; round++) {
            assertEquals(0, ata.plan(round).tasks(1));
        }
    }

    @Test
    void hedgedPlansQueueMoreTasksThanTheQuota() {
        LcbPolicy hedged = new LcbPolicy("ata-hedge:3", new WorkerStats(30), HUGE, 10, 13, 0);
        RoundPlan plan = hedged.plan(1);
        assertEquals(10, plan.quota());
        assertEquals(13, plan.queuedTasks());
    }

    @Test
    void theTwoScoreFormsAgreeToFirstOrderAndOnlyTheRatioFormStaysPositive() {
        ConfidenceWidth.Form sub = ConfidenceWidth.Form.SUBTRACTIVE;
        ConfidenceWidth.Form ratio = ConfidenceWidth.Form.RATIO;
        assertEquals(sub.score(100, 1e-4), ratio.score(100, 1e-4), 1e-5);
        assertTrue(sub.score(100, 2) < 0);
        assertEquals(100 / 3.0, ratio.score(100, 2), 1e-12);
    }
}
