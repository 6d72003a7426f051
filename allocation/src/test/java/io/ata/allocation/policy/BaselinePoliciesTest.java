package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import org.junit.jupiter.api.Test;

class BaselinePoliciesTest {
    private static double[] linearMeans(int n) {
        double[] mu = new double[n];
        for (int j = 1; j <= n; j++) {
            mu[j - 1] = 58.0 * j;
        }
        return mu;
    }

    @Test
    void ftaIsFixedAndProxyOptimal() {
        FixedAllocationPolicy fta = FixedAllocationPolicy.fta(linearMeans(51), 23);
        int[] first = fta.plan(1).toArray(51);
        assertArrayEquals(first, fta.plan(777).toArray(51));
        assertEquals(9, first[0]);
        assertEquals(0, first[9]);
    }

    @Test
    void utaGivesFloorAndARandomRemainder() {
        UniformPolicy uta = new UniformPolicy(new WorkerStats(10), 23, 1);
        int[] extraCount = new int[10];
        for (long round = 1; round <= 2000; round++) {
            RoundPlan plan = uta.plan(round);
            int total = 0;
            for (int i = 0; i < 10; i++) {
                int t = plan.tasks(i);
                assertTrue(t == 2 || t == 3, "floor(23/10) = 2, plus at most one");
                extraCount[i] += t - 2;
                total += t;
            }
            assertEquals(23, total);
        }
        for (int i = 0; i < 10; i++) {
            // each worker is one of the 3 random extras with probability 0.3: 600 of 2000 expected
            assertTrue(
                    Math.abs(extraCount[i] - 600) < 90, "worker " + i + " got the extra " + extraCount[i] + " times");
        }
    }

    @Test
    void gtaQueuesUnboundedWorkOnEveryWorker() {
        RoundPlan plan = new GreedyPolicy(new WorkerStats(7), 3).plan(1);
        assertEquals(7, plan.supportSize());
        assertEquals(RoundPlan.UNBOUNDED, plan.tasks(4));
        assertEquals(3, plan.quota());
        assertEquals(Long.MAX_VALUE, plan.queuedTasks());
    }

    @Test
    void proportionalSharesFollowSpeedsAndSumToTheBatch() {
        FixedAllocationPolicy p = FixedAllocationPolicy.proportional(new double[] {1, 2, 4}, 14);
        // speeds 1, 1/2, 1/4 of total 7/4: exact shares 8, 4, 2
        assertArrayEquals(new int[] {8, 4, 2}, p.allocation());
        FixedAllocationPolicy q = FixedAllocationPolicy.proportional(linearMeans(51), 23);
        int sum = 0;
        for (int a : q.allocation()) {
            sum += a;
        }
        assertEquals(23, sum);
    }

    @Test
    void adaptiveProportionalExploresOnceThenFollowsMeasuredSpeeds() {
        WorkerStats stats = new WorkerStats(3);
        AdaptiveProportionalPolicy policy = new AdaptiveProportionalPolicy(stats, 14, 0);
        RoundPlan first = policy.plan(1);
        assertEquals(3, first.supportSize(), "every unexplored worker measured once");
        stats.record(0, 1);
        stats.record(1, 2);
        stats.record(2, 4);
        assertArrayEquals(new int[] {8, 4, 2}, policy.plan(2).toArray(3));
    }

    @Test
    void factoryKnowsEveryPolicyAndSaysWhatIsMissing() {
        PolicyContext context = new PolicyContext(5, 3, linearMeans(5), ConstantConvention.PAPER, 10, 0.8, "user");
        for (String name : PolicyFactory.parseList(
                "fta,uta,gta,ata,ata-empirical,ata-auto,ata-auto-subtractive,ata-ert,ata-hedge:2,proportional,adaptive-proportional")) {
            AllocationPolicy p = PolicyFactory.create(name, context, 1, new WorkerStats(5));
            assertEquals(name, p.name());
            assertEquals(3, p.plan(1).quota());
        }
        PolicyContext noConstants =
                new PolicyContext(5, 3, null, ConstantConvention.PAPER, Double.NaN, Double.NaN, "-");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> PolicyFactory.create("ata", noConstants, 1, new WorkerStats(5)));
        assertTrue(e.getMessage().contains("--alpha"));
        assertThrows(
                IllegalArgumentException.class, () -> PolicyFactory.create("fta", noConstants, 1, new WorkerStats(5)));
        assertThrows(IllegalArgumentException.class, () -> PolicyFactory.parseList("ata,bogus"));
        assertThrows(IllegalArgumentException.class, () -> PolicyFactory.parseList("ata-hedge:-1"));
    }

    @Test
    void experimentsConventionUsesTheAuthorsConstants() {
        PolicyContext context =
                new PolicyContext(51, 23, linearMeans(51), ConstantConvention.EXPERIMENTS, Double.NaN, Double.NaN, "-");
        String ata =
                PolicyFactory.create("ata", context, 1, new WorkerStats(51)).describe();
        assertTrue(ata.contains("alpha=2*max(mu)=5916"), ata);
        assertTrue(ata.contains("c=64325"), "c = 4 e alpha: " + ata);
        String ataE = PolicyFactory.create("ata-empirical", context, 1, new WorkerStats(51))
                .describe();
        assertTrue(ataE.contains("c_rel=21.746"), "c_rel = 8 e: " + ataE);
    }

    @Test
    void baselinesFollowMembership() {
        WorkerStats fleet = new WorkerStats(3);
        FixedAllocationPolicy fta = new FixedAllocationPolicy(
                "fta", FixedAllocationPolicy.Rule.PROXY_OPTIMAL, fleet, 6, new double[] {1, 2, Double.NaN});
        assertArrayEquals(new int[] {4, 2, 0}, fta.plan(1).toArray(3), "unknown mean: no task");
        fleet.setActive(1, false);
        assertArrayEquals(new int[] {6, 0, 0}, fta.plan(2).toArray(3), "recomputed without the worker that left");
        int joined = fleet.addWorker();
        fta.setKnownMean(joined, 1);
        assertArrayEquals(new int[] {3, 0, 0, 3}, fta.plan(3).toArray(4), "a joining worker with a known mean");

        UniformPolicy uta = new UniformPolicy(fleet, 6, 0);
        RoundPlan plan = uta.plan(1);
        assertEquals(0, plan.tasks(1));
        assertEquals(6, plan.tasks(0) + plan.tasks(2) + plan.tasks(3));
        RoundPlan greedy = new GreedyPolicy(fleet, 6).plan(1);
        assertEquals(3, greedy.supportSize());
        assertEquals(0, greedy.tasks(1));
    }

    @Test
    void tieBreakingDependsOnlyOnSeedAndRound() {
        UniformPolicy a = new UniformPolicy(new WorkerStats(10), 7, 42);
        UniformPolicy b = new UniformPolicy(new WorkerStats(10), 7, 42);
        for (long round = 1; round <= 5; round++) {
            a.plan(round); // b skips these rounds, as a restarted broker would
        }
        assertArrayEquals(a.plan(6).toArray(10), b.plan(6).toArray(10));
    }

    @Test
    void workersWithZeroMeanTimesShareTheBatch() {
        WorkerStats stats = MeasuredFleet.of(3, 1, 0.0, 5.0, 0.0);
        RoundPlan plan = new AdaptiveProportionalPolicy(stats, 7, 0).plan(2);
        assertArrayEquals(new int[] {4, 0, 3}, plan.toArray(3), "infinitely fast workers take everything");
        assertTrue(plan.isExact());
    }

    @Test
    void expectedTimePolicyDropsCachedPlansWhenTheFleetChanges() {
        int n = 12;
        WorkerStats stats = new WorkerStats(n);
        PolicyContext context = new PolicyContext(n, 8, null, ConstantConvention.PAPER, Double.NaN, Double.NaN, "-");
        AllocationPolicy ert = PolicyFactory.create("ata-ert", context, 3, stats);
        java.util.SplittableRandom rng = new java.util.SplittableRandom(1);
        for (long round = 1; round <= 3000; round++) {
            RoundPlan plan = ert.plan(round);
            io.ata.allocation.RoundOutcome outcome = new io.ata.allocation.RoundOutcome(n);
            outcome.reset(round, n);
            for (int k = 0; k < plan.supportSize(); k++) {
                int w = plan.supportWorker(k);
                for (int t = 0; t < plan.tasks(w); t++) {
                    outcome.addCompleted(w, 10.0 * (w + 1) * (0.5 + rng.nextDouble()), true);
                }
            }
            outcome.foldInto(stats);
            ert.observe(outcome);
        }
        RoundPlan before = ert.plan(3001);
        assertTrue(before.tasks(0) > 0, "the fastest worker is used");
        stats.setActive(0, false);
        RoundPlan after = ert.plan(3002);
        assertEquals(0, after.tasks(0), "a worker that left gets nothing, even from a cached refinement");
        assertEquals(8, after.queuedTasks());
    }
}
