package io.ata.allocation.policy;

import io.ata.allocation.WorkerStats;
import org.apache.commons.math3.special.Gamma;

/**
 * A worker's task time as a shifted Gamma, {@code shift + Gamma(shape, scale)}, matched to the
 * first three moments of its observed times. The match is exact for the shifted exponentials of
 * the paper's time models (skew 2, so shape 1) and a three-moment approximation otherwise. Because
 * the shape parameter adds up, the sum of {@code a} independent tasks is the shifted Gamma
 * {@code a shift + Gamma(a shape, scale)}: this is what makes {@link RoundTimeModel} cheap.
 */
final class TimeFit {
    /** The observed mean task time (equal to {@code shift + shape * scale} unless the shift was clipped at 0). */
    final double mean;

    final double shift;
    final double shape;
    final double scale;

    /** A fit as made before; {@link #of} and {@link #ofMoments} make new ones. */
    TimeFit(double mean, double shift, double shape, double scale) {
        this.mean = mean;
        this.shift = shift;
        this.shape = shape;
        this.scale = scale;
    }

    /** The fit of a worker's observed task times. */
    static TimeFit of(WorkerStats stats, int worker) {
        return ofMoments(stats.mean(worker), stats.variance(worker), stats.thirdCentralMoment(worker));
    }

    /**
     * The shifted Gamma with this mean, variance and third central moment: skew {@code g} gives
     * shape {@code 4 / g^2} and scale {@code sd g / 2}, and the shift takes up the rest of the mean.
     */
    static TimeFit ofMoments(double mean, double variance, double thirdCentralMoment) {
        if (!(variance > 0)) {
            variance = 1e-6 * mean * mean; // (near) constant times
        }
        double sd = Math.sqrt(variance);
        double skew = thirdCentralMoment / (variance * sd);
        // Skew below ~0.1 (or negative) is fitted as a near-normal Gamma of large shape.
        skew = Double.isNaN(skew) ? 2.0 : Math.max(skew, 0.1);
        double shape = 4 / (skew * skew);
        double scale = sd * skew / 2;
        double shift = Math.max(0, mean - shape * scale);
        return new TimeFit(mean, shift, shape, scale);
    }

    /** P(sum of {@code count} tasks <= t). */
    double cdfOfSum(int count, double t) {
        double x = (t - count * shift) / scale;
        return x <= 0 ? 0 : Gamma.regularizedGammaP(count * shape, x, 1e-12, 100_000);
    }

    /** A point beyond which the sum of {@code count} tasks almost never lies. */
    double upperQuantile(int count) {
        double k = count * shape;
        return count * shift + scale * (k + 12 * Math.sqrt(k) + 40);
    }
}
