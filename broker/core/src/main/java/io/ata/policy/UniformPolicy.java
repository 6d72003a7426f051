package io.ata.policy;

import io.ata.core.ExplorationRule;
import io.ata.core.RoundOutcome;
import io.ata.core.RoundPlan;
import io.ata.core.RoundRandom;
import io.ata.core.WorkerStats;

/** UTA: every active worker gets {@code floor(B/n)} tasks and {@code B mod n} random ones one more. */
public final class UniformPolicy implements AllocationPolicy {
    private final WorkerStats fleet;
    private final int batch;
    private final long seed;
    private final RoundPlan plan;
    private int[] active = new int[0];

    public UniformPolicy(WorkerStats fleet, int batch, long seed) {
        this.fleet = fleet;
        this.batch = batch;
        this.seed = seed;
        this.plan = new RoundPlan(fleet.size());
    }

    @Override
    public String name() {
        return "uta";
    }

    @Override
    public String describe() {
        return "uniform split, random remainder";
    }

    @Override
    public RoundPlan plan(long round) {
        int n = fleet.size();
        if (active.length < n) {
            active = new int[n];
        }
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (fleet.isActive(i)) {
                active[m++] = i;
            }
        }
        if (m == 0) {
            throw new IllegalStateException("no active worker in round " + round);
        }
        plan.reset(round, batch, n);
        ExplorationRule.spreadEvenly(plan, batch, active, m, RoundRandom.of(seed, round, RoundRandom.EXPLORATION));
        return plan;
    }

    @Override
    public void observe(RoundOutcome outcome) {
        // uniform: nothing to learn
    }
}
