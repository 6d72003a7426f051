package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;

/**
 * GTA, greedy batch collection ("Rennala SGD"): every active worker computes from the start of
 * the round and starts another task whenever one finishes; the round ends at the {@code B}-th
 * result and all work in flight is discarded. Fastest rounds, every worker busy the whole round.
 */
public final class GreedyPolicy extends FleetPolicy {

    public GreedyPolicy(WorkerStats fleet, int batch) {
        super("gta", "every worker busy, first B results kept", fleet, batch);
    }

    @Override
    public RoundPlan plan(long round) {
        int m = collectActive();
        plan.reset(round, batch, stats.size());
        for (int k = 0; k < m; k++) {
            plan.add(active[k], RoundPlan.UNBOUNDED);
        }
        if (m == 0) {
            throw new IllegalStateException("no active worker in round " + round);
        }
        return plan;
    }

    @Override
    public void observe(RoundOutcome outcome) {
        // greedy: nothing to learn
    }
}
