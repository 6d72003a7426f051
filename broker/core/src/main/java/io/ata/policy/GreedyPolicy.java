package io.ata.policy;

import io.ata.core.RoundOutcome;
import io.ata.core.RoundPlan;
import io.ata.core.WorkerStats;

/**
 * GTA, greedy batch collection ("Rennala SGD"): every active worker computes from the start of
 * the round and starts another task whenever one finishes; the round ends at the {@code B}-th
 * result and all work in flight is discarded. Fastest rounds, every worker busy the whole round.
 */
public final class GreedyPolicy implements AllocationPolicy {
    private final WorkerStats fleet;
    private final int batch;
    private final RoundPlan plan;

    public GreedyPolicy(WorkerStats fleet, int batch) {
        this.fleet = fleet;
        this.batch = batch;
        this.plan = new RoundPlan(fleet.size());
    }

    @Override
    public String name() {
        return "gta";
    }

    @Override
    public String describe() {
        return "every worker busy, first B results kept";
    }

    @Override
    public RoundPlan plan(long round) {
        int n = fleet.size();
        plan.reset(round, batch, n);
        for (int i = 0; i < n; i++) {
            if (fleet.isActive(i)) {
                plan.add(i, RoundPlan.UNBOUNDED);
            }
        }
        if (plan.supportSize() == 0) {
            throw new IllegalStateException("no active worker in round " + round);
        }
        return plan;
    }

    @Override
    public void observe(RoundOutcome outcome) {
        // greedy: nothing to learn
    }
}
