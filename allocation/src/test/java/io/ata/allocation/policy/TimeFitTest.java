package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.WorkerStats;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The shifted-Gamma fit against closed forms. */
class TimeFitTest {

    @Test
    void shiftedExponentialIsRecoveredFromItsMoments() {
        // s + Exp(rate): mean s + 1/rate, variance 1/rate^2, third central moment 2/rate^3 (skew 2)
        double s = 29;
        double rate = 1 / 58.0;
        TimeFit fit = TimeFit.ofMoments(s + 1 / rate, 1 / (rate * rate), 2 / (rate * rate * rate));
        assertEquals(s, fit.shift, 1e-9);
        assertEquals(1, fit.shape, 1e-12);
        assertEquals(1 / rate, fit.scale, 1e-9);
        assertEquals(s + 1 / rate, fit.mean, 0);
    }

    @Test
    void gammaIsRecoveredWithNoShift() {
        // Gamma(k, theta): mean k theta, variance k theta^2, third central moment 2 k theta^3
        double k = 3.5;
        double theta = 2;
        TimeFit fit = TimeFit.ofMoments(k * theta, k * theta * theta, 2 * k * theta * theta * theta);
        assertEquals(k, fit.shape, 1e-9);
        assertEquals(theta, fit.scale, 1e-9);
        assertEquals(0, fit.shift, 1e-9);
    }

    @Test
    void lowOrNegativeSkewIsFittedAsANearNormalGamma() {
        // skew clipped at 0.1: shape 400, scale sd * 0.05, the shift takes the rest of the mean
        for (double third : new double[] {0, -5, 0.01}) {
            TimeFit fit = TimeFit.ofMoments(100, 4, third);
            assertEquals(400, fit.shape, 1e-9);
            assertEquals(0.1, fit.scale, 1e-12);
            assertEquals(100 - 400 * 0.1, fit.shift, 1e-9);
            assertEquals(100, fit.shift + fit.shape * fit.scale, 1e-9);
        }
        // a shift that would be negative is clipped at 0
        TimeFit wide = TimeFit.ofMoments(1, 100, 0);
        assertEquals(0, wide.shift);
    }

    @Test
    void constantTimesGetATinySpreadInsteadOfNone() {
        // variance 0 becomes (1e-3 mean)^2: sd 0.05; skew 0 is clipped to 0.1
        TimeFit fit = TimeFit.ofMoments(50, 0, 0);
        assertEquals(400, fit.shape, 1e-9);
        assertEquals(0.05 * 0.1 / 2, fit.scale, 1e-15);
        assertEquals(50 - 400 * 0.0025, fit.shift, 1e-9);
    }

    @Test
    void unknownSkewIsTakenAsAnExponentials() {
        TimeFit fit = TimeFit.ofMoments(50, 4, Double.NaN);
        assertEquals(1, fit.shape, 1e-12);
        assertEquals(2, fit.scale, 1e-12);
        assertEquals(48, fit.shift, 1e-12);
    }

    @Test
    void sumOfTasksFollowsTheErlangDistribution() {
        // the sum of n Exp(rate) tasks is Erlang(n, rate): P(S <= t) = 1 - sum_{j<n} e^{-rate t} (rate t)^j / j!
        double rate = 0.5;
        double shift = 3;
        TimeFit fit = TimeFit.ofMoments(shift + 1 / rate, 1 / (rate * rate), 2 / (rate * rate * rate));
        for (int n : new int[] {1, 2, 5, 12}) {
            for (double x : new double[] {0.1, 1, 4, 10, 30}) {
                double tail = 0;
                double term = Math.exp(-rate * x);
                for (int j = 0; j < n; j++) {
                    tail += term;
                    term *= rate * x / (j + 1);
                }
                assertEquals(1 - tail, fit.cdfOfSum(n, n * shift + x), 1e-9, "n=" + n + ", x=" + x);
            }
            assertEquals(0, fit.cdfOfSum(n, n * shift)); // nothing finishes before the shifts
            assertEquals(0, fit.cdfOfSum(n, n * shift - 1));
        }
    }

    @Test
    void upperQuantileIsBeyondAlmostAllTheMass() {
        for (double shape : new double[] {1, 4, 400}) {
            double scale = 2;
            TimeFit fit = TimeFit.ofMoments(shape * scale + 7, shape * scale * scale, 2 * shape * Math.pow(scale, 3));
            for (int count : new int[] {1, 3, 20}) {
                double q = fit.upperQuantile(count);
                assertTrue(1 - fit.cdfOfSum(count, q) < 1e-12, "shape " + shape + ", count " + count);
                assertTrue(q > count * fit.mean, "the quantile lies above the mean");
            }
        }
    }

    @Test
    void fitOfAWorkersStatisticsUsesItsSampleMoments() {
        WorkerStats stats = new WorkerStats(1);
        SplittableRandom rng = new SplittableRandom(3);
        for (int i = 0; i < 200_000; i++) {
            stats.record(0, 10 + 20 * -Math.log(1 - rng.nextDouble())); // 10 + Exp(mean 20)
        }
        TimeFit fit = TimeFit.of(stats, 0);
        assertEquals(stats.mean(0), fit.mean, 0);
        assertEquals(10, fit.shift, 0.5);
        assertEquals(1, fit.shape, 0.05);
        assertEquals(20, fit.scale, 0.5);
    }
}
