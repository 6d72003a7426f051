package io.ata.allocation.policy;

import io.ata.allocation.ExplorationRule;
import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.RoundRandom;
import io.ata.allocation.WorkerStats;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Self-adaptive allocation (Chao, Liao and Gao): shares proportional to the measured speeds
 * {@code 1/mu_hat_i}, re-estimated every round, with no confidence bounds. Workers never measured
 * get one task first so that they have a speed at all. The deterministic, non-bandit ancestor of
 * ATA: it never revisits a worker whose share rounds to zero.
 */
public final class AdaptiveProportionalPolicy extends FleetPolicy {
    private final long seed;
    private int[] unexplored = new int[0];
    private int[] explored = new int[0];
    private double[] means = new double[0];
    private int[] shares = new int[0];

    public AdaptiveProportionalPolicy(WorkerStats stats, int batch, long seed) {
        super("adaptive-proportional", "shares proportional to measured speeds, no confidence bounds", stats, batch);
        this.seed = seed;
    }

    @Override
    public RoundPlan plan(long round) {
        int n = stats.size();
        int m = collectActive();
        if (unexplored.length < n) {
            unexplored = new int[n];
            explored = new int[n];
            means = new double[n];
            shares = new int[n];
        }
        int u = 0;
        int e = 0;
        for (int k = 0; k < m; k++) {
            int i = active[k];
            if (stats.count(i) == 0) {
                unexplored[u++] = i;
            } else {
                means[e] = stats.mean(i);
                explored[e++] = i;
            }
        }
        plan.reset(round, batch, n);
        SplittableRandom rng = RoundRandom.of(seed, round, RoundRandom.EXPLORATION);
        int picked = Math.min(batch, u);
        ExplorationRule.partialShuffle(unexplored, u, picked, rng);
        for (int k = 0; k < picked; k++) {
            plan.add(unexplored[k], 1);
        }
        int remaining = batch - picked;
        if (remaining > 0) {
            if (e == 0) {
                ExplorationRule.spreadEvenly(plan, remaining, unexplored, u, rng);
            } else {
                Arrays.fill(shares, 0, e, 0);
                ProportionalShares.allocate(means, null, e, remaining, shares);
                for (int k = 0; k < e; k++) {
                    plan.add(explored[k], shares[k]);
                }
            }
        }
        return plan;
    }

    @Override
    public void observe(RoundOutcome outcome) {
        // the caller folds the statistics; nothing else to learn
    }
}
