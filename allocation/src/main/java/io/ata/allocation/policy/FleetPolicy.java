package io.ata.allocation.policy;

import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;

/**
 * What every built-in policy holds: its name and description, the statistics of the fleet it plans
 * for, the round's quota B, and the one {@link RoundPlan} it fills again each round (reused, so that
 * planning a round allocates nothing). A policy whose description reports what it has learned
 * overrides {@link #describe()}.
 */
abstract class FleetPolicy implements AllocationPolicy {
    private final String name;
    private final String description;
    final WorkerStats stats;
    /** B: how many results a round keeps. */
    final int batch;

    final RoundPlan plan;
    /** The workers {@link #collectActive()} found active, in index order; reused across rounds. */
    int[] active = new int[0];

    FleetPolicy(String name, String description, WorkerStats stats, int batch) {
        this.name = name;
        this.description = description;
        this.stats = stats;
        this.batch = batch;
        this.plan = new RoundPlan(stats.size());
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public String describe() {
        return description;
    }

    /** Fills {@link #active} with this round's active workers and returns how many there are. */
    final int collectActive() {
        int n = stats.size();
        if (active.length < n) {
            active = new int[n];
        }
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (stats.isActive(i)) {
                active[m++] = i;
            }
        }
        return m;
    }
}
