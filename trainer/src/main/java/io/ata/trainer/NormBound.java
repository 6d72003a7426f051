package io.ata.trainer;

import java.util.Arrays;

/**
 * The rule that keeps one forged or broken gradient from moving the model: a result of the open
 * round whose gradient's L2 norm is more than {@code factor} times the median norm of the results
 * accepted so far (or above {@code maxNorm}, whatever the others) is refused, dead-lettered and
 * not counted towards B. Finite values are not enough: a worker that sends 1e300 in every
 * coordinate passes the NaN check and makes the mean, and the objective, infinite.
 *
 * <p>The median is the round's own once it holds {@code minAccepted} results; before that, the
 * median of the previous round's accepted results (a round's gradients are of the same scale as
 * the last round's); in the first round of a trainer, with fewer than {@code minAccepted}
 * accepted, only {@code maxNorm} applies. A median of 0 (every gradient zero) gives no scale, so
 * only {@code maxNorm} applies then too.
 *
 * @param factor      k: refused above k times the median; {@code Infinity} turns the relative rule off
 * @param minAccepted results the round must hold before its own median is the scale (at least 1)
 * @param maxNorm     an absolute cap on the norm; {@code Infinity}: none
 */
public record NormBound(double factor, int minAccepted, double maxNorm) {
    /** k = 10 after 3 accepted results, no absolute cap. */
    public static final NormBound DEFAULT = new NormBound(10, 3, Double.POSITIVE_INFINITY);

    /** No norm rule: every finite gradient is accepted. */
    public static final NormBound OFF = new NormBound(Double.POSITIVE_INFINITY, 1, Double.POSITIVE_INFINITY);

    public NormBound {
        if (!(factor > 1)) {
            throw new IllegalArgumentException("norm factor must be > 1 (Infinity: off), was " + factor);
        }
        Bounds.atLeast(minAccepted, 1, "minAccepted");
        if (!(maxNorm > 0)) {
            throw new IllegalArgumentException("max gradient norm must be > 0 (Infinity: none), was " + maxNorm);
        }
    }

    /**
     * Why a gradient of L2 norm {@code norm} is refused, or null if it is not.
     *
     * @param accepted       the norms of the round's accepted results so far
     * @param count          how many of {@code accepted} are in use
     * @param previousMedian the median norm of the previous round's accepted results; NaN if unknown
     */
    String refusal(double norm, double[] accepted, int count, double previousMedian) {
        if (norm > maxNorm) {
            return "gradient L2 norm " + norm + " is above the cap " + maxNorm;
        }
        if (Double.isInfinite(factor)) {
            return null;
        }
        double median;
        String of;
        if (count >= minAccepted) {
            median = median(accepted, count);
            of = "the round's " + count + " accepted results";
        } else if (previousMedian > 0) {
            median = previousMedian;
            of = "the previous round's accepted results";
        } else {
            return null;
        }
        if (median > 0 && norm > factor * median) {
            return "gradient L2 norm " + norm + " is above " + factor + " x the median norm " + median + " of " + of;
        }
        return null;
    }

    /** The median of the first {@code count} values (the mean of the middle two for an even count); NaN if none. */
    static double median(double[] values, int count) {
        if (count == 0) {
            return Double.NaN;
        }
        double[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        int middle = count / 2;
        return count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /**
     * The L2 norm of {@code v}, scaled by its largest magnitude so that values near
     * {@link Double#MAX_VALUE} do not overflow the sum of squares (the norm itself may still be
     * Infinity, which is above any bound).
     */
    static double l2(double[] v) {
        double scale = 0;
        for (double x : v) {
            scale = Math.max(scale, Math.abs(x));
        }
        if (scale == 0) {
            return 0;
        }
        double sum = 0;
        for (double x : v) {
            double y = x / scale;
            sum += y * y;
        }
        return scale * Math.sqrt(sum);
    }
}
