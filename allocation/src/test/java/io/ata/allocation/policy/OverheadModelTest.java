package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import org.junit.jupiter.api.Test;

class OverheadModelTest {
    private static final ConfidenceWidth NONE = ConfidenceWidth.absolute(0, "test");

    /**
     * A round in which each worker {@code w} ran {@code tasks[w]} tasks of {@code compute[w]} each,
     * its first result arriving {@code perRound[w] + compute[w]} after the start and each further
     * one {@code perTask[w] + compute[w]} after the previous: the model's own assumptions, exactly.
     */
    private static RoundOutcome round(long k, int[] tasks, double[] compute, double[] perRound, double[] perTask) {
        RoundOutcome outcome = new RoundOutcome(tasks.length);
        outcome.reset(k, tasks.length);
        for (int w = 0; w < tasks.length; w++) {
            double arrival = perRound[w];
            for (int t = 0; t < tasks[w]; t++) {
                arrival += compute[w] + (t > 0 ? perTask[w] : 0);
                outcome.addCompleted(w, compute[w], true, arrival);
            }
        }
        return outcome;
    }

    @Test
    void learnsEachWorkersPerRoundAndPerTaskTermsApart() {
        OverheadModel model = new OverheadModel();
        double[] perRound = {12, 4, 4};
        double[] perTask = {9, 1, 2};
        for (long k = 1; k <= 2000; k++) {
            model.observe(round(k, new int[] {3, 2, 1}, new double[] {10, 20, 40}, perRound, perTask));
        }
        // each worker's own mean, pulled towards the fleet's by 10 samples' weight in 2,000
        for (int w = 0; w < 3; w++) {
            assertEquals(perRound[w], model.perRound(w), 0.05, "per round, worker " + w);
        }
        assertEquals(9, model.perTask(0), 0.05);
        assertEquals(1, model.perTask(1), 0.05);
        assertEquals(0, model.perTaskSamples(2), "worker 2 never ran two tasks in a round");
        assertTrue(model.perTask(2) > 1 && model.perTask(2) < 9, "it takes the fleet's per-task term");
    }

    @Test
    void aWorkersFirstRoundIsNoSampleAndFewSamplesLeanOnTheFleet() {
        OverheadModel model = new OverheadModel();
        // round 1: worker 0 fetches the job's model first (500 ms), worker 1 had it cached
        model.observe(round(1, new int[] {1, 1}, new double[] {10, 10}, new double[] {500, 5}, new double[] {0, 0}));
        assertFalse(model.hasLearned(), "first rounds carry one-time costs");
        model.observe(round(2, new int[] {1, 1}, new double[] {10, 10}, new double[] {5, 5}, new double[] {0, 0}));
        assertEquals(5, model.perRound(0), 1e-9);
        // one slow sample of worker 0 weighs 1 against the fleet's 10
        model.observe(round(3, new int[] {1, 1}, new double[] {10, 10}, new double[] {60, 5}, new double[] {0, 0}));
        double fleet = model.perRound(2); // a worker never seen takes the fleet's mean
        assertEquals(
                (2 * (5 + 60) / 2.0 + OverheadModel.PRIOR * fleet) / (2 + OverheadModel.PRIOR),
                model.perRound(0),
                1e-9);
        assertTrue(model.perRound(0) < 40, "not yet judged on its one slow round");
    }

    @Test
    void outcomesWithoutArrivalsTeachNothing() {
        OverheadModel model = new OverheadModel();
        RoundOutcome outcome = new RoundOutcome(2);
        outcome.reset(1, 2);
        outcome.addCompleted(0, 10, true);
        outcome.addCompleted(0, 10, true);
        outcome.addCompleted(1, 30, true);
        model.observe(outcome);
        assertFalse(model.hasLearned());
    }

    @Test
    void aSingleStallMovesTheEstimateByABoundedAmount() {
        OverheadModel model = new OverheadModel();
        for (long k = 1; k <= 30; k++) {
            model.observe(round(k, new int[] {2}, new double[] {10}, new double[] {5}, new double[] {3}));
        }
        // a 2 s stall (GC, rebalance) between two results: counted as at most 4 x 3 ms
        model.observe(round(31, new int[] {2}, new double[] {10}, new double[] {5}, new double[] {2000}));
        assertEquals(3 + (4 * 3 - 3) / (double) OverheadModel.MEMORY, model.perTask(0), 1e-9);
    }

    @Test
    void aPolicyWithTheModelMovesTasksOffAWorkerWhoseResultsCostMoreThanItsComputeSays() {
        // two workers measured at 10 and 14 ms a task; worker 0's results take 12 ms more each to arrive
        double[] compute = {10, 14};
        WorkerStats plainStats = new WorkerStats(2);
        WorkerStats awareStats = new WorkerStats(2);
        LcbPolicy plain = new LcbPolicy("ata", plainStats, NONE, 6, 6, 0, null, null);
        LcbPolicy aware = new LcbPolicy("ata", awareStats, NONE, 6, 6, 0, null, new OverheadModel());
        for (long k = 1; k <= 20; k++) {
            for (LcbPolicy p : new LcbPolicy[] {plain, aware}) {
                RoundPlan plan = p.plan(k);
                int[] tasks = {plan.tasks(0), plan.tasks(1)};
                RoundOutcome outcome = round(k, tasks, compute, new double[] {5, 5}, new double[] {12, 0});
                outcome.foldInto(p.stats());
                p.observe(outcome);
            }
        }
        RoundPlan p = plain.plan(21);
        assertArrayEquals(new int[] {4, 2}, new int[] {p.tasks(0), p.tasks(1)}, "on compute: 40 against 28");
        RoundPlan a = aware.plan(21);
        // end to end, a tasks cost worker 0 5 + 10 a + 12 (a - 1) and worker 1 5 + 14 a:
        // 3 and 3 give max(59, 47) = 59; 4 and 2 give 81; 2 and 4 give 61
        assertArrayEquals(new int[] {3, 3}, new int[] {a.tasks(0), a.tasks(1)}, "on end-to-end cost");
    }
}
