package io.ata.lab.sim;

/**
 * How old the statistics are that a round is planned from. The live broker plans round {@code k}
 * when round {@code k} opens, after folding round {@code k-1} ({@link #FRESH}); with pipelined
 * allocation it plans round {@code k+1} already when round {@code k} opens, so the plan misses
 * round {@code k}'s observations ({@link #ONE_ROUND_STALE}). The simulator runs either, so the
 * cost of the staleness can be measured on the same durations.
 */
public enum StatisticsAge {
    /** Round {@code k} is planned after round {@code k-1} was observed (the paper's protocol). */
    FRESH,
    /** Round {@code k} is planned after round {@code k-2} was observed (pipelined allocation). */
    ONE_ROUND_STALE;

    /** The label a stale run's results carry beside the fresh ones: {@code ata-auto@stale}. */
    public String label(String policy) {
        return this == FRESH ? policy : policy + "@stale";
    }
}
