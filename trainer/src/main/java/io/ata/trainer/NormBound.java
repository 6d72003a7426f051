package io.ata.trainer;

import java.util.Arrays;

/**
 * The rule that keeps one forged or broken gradient from moving the model far: a result of the
 * open round whose gradient's L2 norm is more than {@code factor} times the median norm of the
 * results accepted so far (or above {@code maxNorm}, whatever the others) is clipped to that
 * limit: scaled down to the limit's norm, its direction kept, and accepted. Finite values are not
 * enough: a worker that sends 1e300 in every coordinate passes the NaN check and would make the
 * mean, and the objective, infinite.
 *
 * <p>Why clip rather than refuse: a task's samples are a function of its id, so every run of a
 * task, its backup copy included, computes the same gradient. An honest gradient far above the
 * median (a hard batch) refused once is refused every time, and the round it belongs to could
 * never close. Clipped, it moves the model by at most {@code limit / B}, as any gradient of that
 * norm would: the standard gradient-norm clipping of deep learning, applied per result, which a
 * forged gradient cannot escape either.
 *
 * <p>The median is the round's own once it holds {@code minAccepted} results; before that, the
 * median of the previous round's accepted results (a round's gradients are of the same scale as
 * the last round's); in the first round of a trainer, with fewer than {@code minAccepted}
 * accepted, only {@code maxNorm} applies. A median of 0 (every gradient zero) gives no scale, so
 * only {@code maxNorm} applies then too.
 *
 * @param factor      k: clipped above k times the median; {@code Infinity} turns the relative rule off
 * @param minAccepted results the round must hold before its own median is the scale (at least 1)
 * @param maxNorm     an absolute cap on the norm; {@code Infinity}: none
 */
public record NormBound(double factor, int minAccepted, double maxNorm) {
    /** Clipped above 10 x the median after 3 accepted results, no absolute cap. */
    public static final NormBound DEFAULT = new NormBound(10, 3, Double.POSITIVE_INFINITY);

    /** No norm rule: every finite gradient is accepted as it is. */
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
     * The largest norm a gradient may have now, and why: the cap, or {@code factor} times the
     * median of the round's accepted norms (or, before it has {@code minAccepted}, of the previous
     * round's), whichever is lower; {@code Infinity} (reason null) when neither applies.
     *
     * @param norm     the limit, in L2 norm
     * @param reason   what the limit is, for the log; null when there is none
     */
    record Limit(double norm, String reason) {
        static final Limit NONE = new Limit(Double.POSITIVE_INFINITY, null);

        /** Whether a gradient of L2 norm {@code l2} is above the limit (and must be clipped). */
        boolean exceededBy(double l2) {
            return l2 > norm;
        }
    }

    /**
     * The limit on the next gradient's L2 norm.
     *
     * @param accepted       the norms of the round's accepted results so far, ascending
     * @param count          how many of {@code accepted} are in use
     * @param previousMedian the median norm of the previous round's accepted results; NaN if unknown
     */
    Limit limit(double[] accepted, int count, double previousMedian) {
        Limit limit = Double.isInfinite(maxNorm) ? Limit.NONE : new Limit(maxNorm, "the cap " + maxNorm);
        if (Double.isInfinite(factor)) {
            return limit;
        }
        double median;
        String of;
        if (count >= minAccepted) {
            median = medianOfSorted(accepted, count);
            of = "the round's " + count + " accepted results";
        } else if (previousMedian > 0) {
            median = previousMedian;
            of = "the previous round's accepted results";
        } else {
            return limit;
        }
        if (median > 0 && factor * median < limit.norm()) {
            return new Limit(factor * median, factor + " x the median norm " + median + " of " + of);
        }
        return limit;
    }

    /**
     * {@code v} scaled to L2 norm {@code limit} ({@code l2} is its norm now, above the limit),
     * in place. Each value is divided by the largest magnitude first, so that a norm of Infinity
     * (values near {@link Double#MAX_VALUE}) still gives the right direction, not zeros or NaN.
     */
    static void clip(double[] v, double l2, double limit) {
        if (Double.isFinite(l2)) {
            double scale = limit / l2;
            for (int i = 0; i < v.length; i++) {
                v[i] *= scale;
            }
            return;
        }
        double largest = 0;
        for (double x : v) {
            largest = Math.max(largest, Math.abs(x));
        }
        for (int i = 0; i < v.length; i++) {
            v[i] /= largest;
        }
        double unit = l2(v);
        for (int i = 0; i < v.length; i++) {
            v[i] = v[i] / unit * limit;
        }
    }

    /** The median of the first {@code count} values (the mean of the middle two for an even count); NaN if none. */
    static double median(double[] values, int count) {
        if (count == 0) {
            return Double.NaN;
        }
        double[] sorted = Arrays.copyOf(values, count);
        Arrays.sort(sorted);
        return medianOfSorted(sorted, count);
    }

    /**
     * The median of the first {@code count} values of {@code sorted}, ascending: no copy and no
     * sort, as a limit is asked for every result of a round (a round of 1,024 sorted 1,024 times).
     */
    static double medianOfSorted(double[] sorted, int count) {
        if (count == 0) {
            return Double.NaN;
        }
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
