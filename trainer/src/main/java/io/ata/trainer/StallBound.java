package io.ata.trainer;

import java.util.Arrays;

/**
 * How long the open round may go without progress before the trainer re-drives it: the job's own
 * expected round time, measured as the median of its recent rounds, times {@link #FACTOR}, and at
 * least {@link #FLOOR_MS}. Until the job has a round time (its first rounds, when agents still load
 * their engines), {@link #WARM_UP_MS}, or {@link #ENGINE_WARM_UP_MS} for a network job. A restarted trainer starts from the median its predecessor
 * published with the last model version.
 *
 * <p>The same bound is the deadline of an assignment whose policy gives none: a worker that sends
 * no result for that long is asked to be backed up, whatever the policy.
 *
 * <p>Not thread-safe: {@link RoundAssignments} guards it.
 */
final class StallBound {
    /** The round times kept: enough rounds for a stable median, few enough to follow a changing fleet. */
    static final int WINDOW = 32;
    /** A round is stalled after this many times the median round time without closing. */
    static final double FACTOR = 5;
    /** The shortest bound: a commit or a rebalance on a loaded machine is no stall. */
    static final double FLOOR_MS = 2_000;
    /** The bound before the job has a round time. */
    static final double WARM_UP_MS = 10_000;
    /**
     * The bound before a network job has a round time: its agents load a deep-learning engine
     * (PyTorch through DJL) and the first model version at their first task, which takes well over
     * {@link #WARM_UP_MS} on a busy machine and is no stall.
     */
    static final double ENGINE_WARM_UP_MS = 30_000;
    /** The longest median resumed from a record: more is no round time but a bad record. */
    static final double MAX_RESUMED_MS = 3_600_000;

    private final double warmUpMs;
    private final double[] rounds = new double[WINDOW];
    private int count;
    private int next;
    private double resumed = Double.NaN;

    /** @param warmUpMs the bound until the job has a round time: {@link #WARM_UP_MS} or {@link #ENGINE_WARM_UP_MS} */
    StallBound(double warmUpMs) {
        this.warmUpMs = warmUpMs;
    }

    /** A round closed after {@code roundTimeMs}. */
    void roundClosed(double roundTimeMs) {
        if (!(roundTimeMs >= 0) || Double.isInfinite(roundTimeMs)) {
            return;
        }
        rounds[next] = roundTimeMs;
        next = (next + 1) % WINDOW;
        count = Math.min(count + 1, WINDOW);
    }

    /** Starts from the median round time a previous trainer of the job published (0 or bad: none). */
    void resume(double medianMs) {
        resumed = medianMs > 0 && medianMs <= MAX_RESUMED_MS ? medianMs : Double.NaN;
    }

    /** The median of the recent round times, or the resumed one; NaN if there is neither. */
    double medianRoundMs() {
        if (count == 0) {
            return resumed;
        }
        double[] sorted = Arrays.copyOf(rounds, count);
        Arrays.sort(sorted);
        int middle = count / 2;
        return count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** The bound in ms: {@link #FACTOR} x the median round time, at least {@link #FLOOR_MS}. */
    double ms() {
        double median = medianRoundMs();
        return Double.isNaN(median) ? warmUpMs : Math.max(FLOOR_MS, FACTOR * median);
    }
}
