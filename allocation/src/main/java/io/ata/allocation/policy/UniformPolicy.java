package io.ata.allocation.policy;

import io.ata.allocation.ExplorationRule;
import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.RoundRandom;
import io.ata.allocation.WorkerStats;

/** UTA: every active worker gets {@code floor(B/n)} tasks and {@code B mod n} random ones one more. */
public final class UniformPolicy extends FleetPolicy {
    private final long seed;

    public UniformPolicy(WorkerStats fleet, int batch, long seed) {
        super("uta", "uniform split, random remainder", fleet, batch);
        this.seed = seed;
    }

    @Override
    public RoundPlan plan(long round) {
        int m = collectActive();
        if (m == 0) {
            throw new IllegalStateException("no active worker in round " + round);
        }
        plan.reset(round, batch, stats.size());
        ExplorationRule.spreadEvenly(plan, batch, active, m, RoundRandom.of(seed, round, RoundRandom.EXPLORATION));
        return plan;
    }

    @Override
    public void observe(RoundOutcome outcome) {
        // uniform: nothing to learn
    }
}
