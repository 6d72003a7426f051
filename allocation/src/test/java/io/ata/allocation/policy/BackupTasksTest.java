package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.util.SplittableRandom;
import org.apache.commons.math3.distribution.GammaDistribution;
import org.junit.jupiter.api.Test;

/** The deadline rule and the probation of workers that lose tasks to their backups, through ATA. */
class BackupTasksTest {
    private static final ConfidenceWidth NONE = ConfidenceWidth.absolute(0, "test");

    /** {@code count} exponential durations of mean {@code mean} (plus {@code shift}) for worker {@code w}. */
    private static void observe(WorkerStats stats, int w, double shift, double mean, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int k = 0; k < count; k++) {
            stats.record(w, shift - mean * Math.log(1 - random.nextDouble()));
        }
    }

    @Test
    void aDeadlineIsTheFitsHighQuantileBetweenOneAndAHalfAndTwoMeans() {
        WorkerStats stats = new WorkerStats(3);
        observe(stats, 0, 0, 10, 20_000, 1); // exponential: its 99.9% quantile is 6.9 means
        observe(stats, 1, 100, 0.5, 20_000, 2); // near-constant: 1.03 means
        observe(stats, 2, 20, 10, 20_000, 3); // the paper's shifted exponential: 2.8 means
        DeadlineRule rule = new DeadlineRule(0);
        assertEquals(2 * stats.mean(0), rule.deadline(stats, 0), 1e-9, "capped at two means");
        assertEquals(1.5 * stats.mean(1), rule.deadline(stats, 1), 1e-9, "at least one and a half");
        assertEquals(2 * stats.mean(2), rule.deadline(stats, 2), 1e-9);
        assertEquals(2 * stats.mean(0) + 7, new DeadlineRule(7).deadline(stats, 0), 1e-9, "plus the floor");

        WorkerStats fresh = new WorkerStats(1);
        fresh.record(0, 10);
        assertEquals(Double.POSITIVE_INFINITY, rule.deadline(fresh, 0), "one sample: no deadline yet");
    }

    @Test
    void theQuantileDecidesBetweenTheBounds() {
        // a Gamma of shape 16 and scale 1 (sd a quarter of the mean): its 99.9% quantile, 1.96 means,
        // lies between the bounds, so it is the deadline
        TimeFit fit = TimeFit.ofMoments(16, 16, 32);
        double exact = new GammaDistribution(16, 1).inverseCumulativeProbability(0.999);
        assertEquals(exact, DeadlineRule.quantile(fit), 0.01 * exact, "Wilson-Hilferty is within 1%");
        assertTrue(exact > 1.5 * 16 && exact < 2 * 16);
    }

    @Test
    void beingStuckFarBeyondTheFitIsImplausibleAndJustOverdueIsNot() {
        WorkerStats stats = new WorkerStats(1);
        observe(stats, 0, 0, 10, 10_000, 4);
        DeadlineRule rule = new DeadlineRule(0);
        assertFalse(rule.implausible(stats, 0, 30), "three means: e^-3 of exponential tasks run this long");
        assertTrue(rule.implausible(stats, 0, 120), "twelve means: e^-12");
    }

    /** ATA with backups over four explored workers of means 10, 20, 30, 40. */
    private static LcbPolicy ataWithBackups(WorkerStats stats) {
        for (int w = 0; w < 4; w++) {
            observe(stats, w, 0, 10 * (w + 1), 200, 10 + w);
        }
        return new LcbPolicy("ata", stats, NONE, 8, 8, 0).withBackups(0);
    }

    /** Worker {@code w} lost a task to its backup after being stuck for {@code stuckFor}. */
    private static RoundOutcome lost(long round, int w, double stuckFor) {
        RoundOutcome outcome = new RoundOutcome(4);
        outcome.reset(round, 4);
        outcome.addBackedUp(w);
        outcome.addLostToBackup(w, stuckFor);
        outcome.addCompleted((w + 1) % 4, 10, true);
        return outcome;
    }

    @Test
    void aWorkerStuckImplausiblyLongGetsOnlyProbesUntilOneIsInTime() {
        WorkerStats stats = new WorkerStats(4);
        LcbPolicy ata = ataWithBackups(stats);
        assertTrue(ata.plan(1).tasks(0) >= 3, "the fastest carries the most");
        ata.observe(lost(1, 0, 500)); // 50 means

        RoundPlan probe = ata.plan(2);
        assertEquals(1, probe.tasks(0), "round 2: one probe");
        assertEquals(9, probe.queuedTasks(), "beyond the batch of 8");
        assertEquals(Double.POSITIVE_INFINITY, ata.deadlines().orElseThrow().deadline(0), "no deadline on probation");
        assertTrue(Double.isNaN(ata.deadlines().orElseThrow().expectedTime(0)), "and no backups to run");
        RoundOutcome probeLost = new RoundOutcome(4);
        probeLost.reset(2, 4);
        probeLost.addCancelled(0, 80); // the probe did not come back
        ata.observe(probeLost);
        assertEquals(0, ata.plan(3).tasks(0), "the next probe is two rounds later");
        assertEquals(8, ata.plan(3).queuedTasks());
        RoundPlan secondProbe = ata.plan(4);
        assertEquals(1, secondProbe.tasks(0));

        RoundOutcome inTime = new RoundOutcome(4);
        inTime.reset(4, 4);
        inTime.addCompleted(0, 12, false);
        ata.observe(inTime);
        RoundPlan back = ata.plan(5);
        assertTrue(back.tasks(0) >= 3 && back.isExact(), "a probe in time ends the probation: " + back);
    }

    @Test
    void oneLossAfterAPlausibleTimeIsAStrikeAndASecondWithNothingDoneInBetweenIsProbation() {
        WorkerStats stats = new WorkerStats(4);
        LcbPolicy ata = ataWithBackups(stats);
        ata.observe(lost(1, 1, 45)); // 2.25 means of worker 1: overdue, plausible
        assertTrue(ata.plan(2).tasks(1) >= 1 && ata.plan(2).isExact(), "one strike keeps its share");

        RoundOutcome recovered = new RoundOutcome(4);
        recovered.reset(2, 4);
        recovered.addCompleted(1, 20, true);
        ata.observe(recovered);
        ata.observe(lost(3, 1, 45));
        assertTrue(ata.plan(4).isExact(), "a completed task in between wiped the strike");

        ata.observe(lost(4, 1, 45));
        RoundPlan plan = ata.plan(5);
        assertEquals(1, plan.tasks(1), "two strikes in a row: probation, probed at once");
        assertEquals(9, plan.queuedTasks());
    }
}
