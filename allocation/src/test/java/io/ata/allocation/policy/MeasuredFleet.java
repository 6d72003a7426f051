package io.ata.allocation.policy;

import io.ata.allocation.WorkerStats;

/** Test fleets whose statistics already hold measurements. */
final class MeasuredFleet {
    private MeasuredFleet() {}

    /**
     * Statistics of {@code workers} workers where worker i has completed {@code samplesEach} tasks of
     * {@code durations[i]} each; the workers past {@code durations.length} have none yet.
     */
    static WorkerStats of(int workers, int samplesEach, double... durations) {
        WorkerStats stats = new WorkerStats(workers);
        for (int k = 0; k < samplesEach; k++) {
            for (int i = 0; i < durations.length; i++) {
                stats.record(i, durations[i]);
            }
        }
        return stats;
    }
}
