package io.ata.trainer;

import java.util.Arrays;

/**
 * How long a healthy result takes beyond its compute, as the trainer sees it: the time between
 * an assignment's last progress (seen, or its previous result) and its next result, less that
 * result's compute time. This is the delivery of the assignment, the agent's publish and commit,
 * and the trainer's read_committed read: everything a backup deadline must allow on top of the
 * worker's fitted task time. The margin is a high quantile of the recent samples, so on a loaded
 * machine, where commits take longer, deadlines stretch with it instead of firing copies of
 * healthy tasks; on an idle one it stays small and a hung worker is caught as soon as before.
 *
 * <p>Not thread-safe: {@link RoundAssignments} guards it.
 */
final class DeliveryMargin {
    /** The samples kept: a few dozen rounds of a small fleet. */
    static final int WINDOW = 256;
    /** The quantile of the window used: the largest few samples are treated as accidents. */
    static final double QUANTILE = 0.99;
    /**
     * Fewer samples than this and the margin is the one resumed from a previous trainer, or 0 for a
     * new job: the broker's floor alone stands.
     */
    static final int MIN_SAMPLES = 20;
    /** The largest margin taken from a previous trainer: more is no delivery, but a bad record. */
    static final double MAX_RESUMED_MS = 60_000;

    private final double[] samples = new double[WINDOW];
    private int count;
    private int next;
    private double margin;
    private boolean stale;
    private double resumed;

    /** A result arrived {@code gapMs} after its assignment's last progress and took {@code computeMs} to compute. */
    void sample(double gapMs, double computeMs) {
        if (!Double.isFinite(gapMs) || !Double.isFinite(computeMs)) {
            return; // the trainer validated compute_ms; this only guards the arithmetic
        }
        samples[next] = Math.max(0, gapMs - computeMs); // results read in one poll arrive together
        next = (next + 1) % WINDOW;
        count = Math.min(count + 1, WINDOW);
        stale = true;
    }

    /**
     * Starts from the margin a previous trainer of the job learned ({@code ms}, published with its
     * last model version), until this one has {@link #MIN_SAMPLES} samples of its own; without it a
     * restarted trainer's first deadlines would fire copies of healthy tasks.
     */
    void resume(double ms) {
        // a bad record must not switch backups off: a non-finite or negative margin is 0, a huge one capped
        resumed = Double.isFinite(ms) && ms > 0 ? Math.min(ms, MAX_RESUMED_MS) : 0;
        stale = true;
    }

    /**
     * The margin in ms: the {@link #QUANTILE} of the recent samples; before {@link #MIN_SAMPLES}, the
     * resumed margin (0 for a new job).
     */
    double ms() {
        if (stale) {
            margin = count < MIN_SAMPLES ? resumed : quantile();
            stale = false;
        }
        return margin;
    }

    private double quantile() {
        double[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        return sorted[(int) Math.ceil(QUANTILE * count) - 1];
    }
}
