package io.ata.schemas;

/**
 * The one range of a valid compute time ({@code compute_ms} of a result, a timing or a round
 * timing), which every part checks the same way: what the trainer accepts, the broker folds. Two
 * ranges would let the trainer accept a timing that the broker then refuses, and the round would
 * lose the statistics it carried.
 */
public final class ComputeTime {
    /** The longest valid compute time, in ms (7 days): longer is no task of a training round. */
    public static final double MAX_MS = 7 * 24 * 3600 * 1000.0;

    private ComputeTime() {}

    /** Whether {@code ms} is a valid compute time: 0 to {@link #MAX_MS}, so neither NaN nor infinite. */
    public static boolean isValid(double ms) {
        return ms >= 0 && ms <= MAX_MS;
    }

    /**
     * Why {@code ms} is not a valid compute time, naming it {@code what} (e.g. {@code "compute_ms"}),
     * or null if it is.
     */
    public static String problem(String what, double ms) {
        return isValid(ms) ? null : what + " " + ms + " is out of range (0 to " + (long) MAX_MS + " ms)";
    }
}
