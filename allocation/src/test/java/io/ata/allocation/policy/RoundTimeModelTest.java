package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/** The expected round time E[max_i S_i] = integral of 1 - prod_i F_i, against closed forms. */
class RoundTimeModelTest {

    /** s + Exp(rate): exactly a shifted Gamma of shape 1. */
    private static TimeFit shiftedExponential(double shift, double rate) {
        return TimeFit.ofMoments(shift + 1 / rate, 1 / (rate * rate), 2 / (rate * rate * rate));
    }

    private static RoundTimeModel model(double horizon, TimeFit... fits) {
        RoundTimeModel model = new RoundTimeModel(w -> fits[w]);
        model.setHorizon(horizon);
        return model;
    }

    private static int[] workers(int n) {
        int[] w = new int[n];
        Arrays.setAll(w, i -> i);
        return w;
    }

    /**
     * The grid's trapezoids are exact to about {@code (step / scale)^2 / 12} of the scale: 2.3e-4
     * for an exponential with the grid reaching 40 means.
     */
    private static final double RELATIVE_ACCURACY = 3e-4;

    @Test
    void maxOfIdenticalExponentialsIsTheHarmonicNumberOverTheRate() {
        double rate = 1 / 58.0;
        for (int n : new int[] {1, 2, 8, 51}) {
            TimeFit[] fits = new TimeFit[n];
            Arrays.fill(fits, shiftedExponential(0, rate));
            RoundTimeModel model = model(40 / rate, fits);
            int[] a = new int[n];
            Arrays.fill(a, 1);
            double harmonic = 0;
            for (int k = 1; k <= n; k++) {
                harmonic += 1.0 / k;
            }
            assertEquals(
                    harmonic / rate, model.expectedMax(workers(n), a), RELATIVE_ACCURACY * harmonic / rate, "n=" + n);
        }
    }

    @Test
    void oneWorkersRoundTimeIsTheMeanOfItsTasksSum() {
        TimeFit fit = shiftedExponential(29, 1 / 29.0);
        for (int tasks : new int[] {1, 3, 8}) {
            RoundTimeModel model = model(fit.upperQuantile(tasks), fit);
            double expected = tasks * fit.mean; // a shifts plus Gamma(a, scale), whose mean is a scale
            assertEquals(expected, model.expectedMax(new int[] {0}, new int[] {tasks}), RELATIVE_ACCURACY * expected);
        }
    }

    @Test
    void sumOfTasksIsAGammaOfTheSummedShape() {
        // Two workers: one with 3 tasks of Exp(rate) (Erlang(3)), one with one task of Gamma(3, 1/rate).
        // Their sums have the same distribution, so E[max] is that of two i.i.d. Erlang(3) variables:
        // E[max(X, Y)] = 2 E[X] - E[min(X, Y)], with E[min] = integral of P(X > t)^2.
        double rate = 0.25;
        TimeFit exponential = shiftedExponential(0, rate);
        TimeFit gamma3 = TimeFit.ofMoments(3 / rate, 3 / (rate * rate), 6 / (rate * rate * rate));
        RoundTimeModel model = model(80 / rate, exponential, gamma3);
        double erlangMin = integral(
                t -> {
                    double x = rate * t;
                    double survival = Math.exp(-x) * (1 + x + x * x / 2);
                    return survival * survival;
                },
                80 / rate);
        double expected = 2 * 3 / rate - erlangMin;
        assertEquals(expected, model.expectedMax(new int[] {0, 1}, new int[] {3, 1}), RELATIVE_ACCURACY * expected);
        // and the same pair, each worker one Erlang(3) sum, in the other order
        assertEquals(
                model.expectedMax(new int[] {0, 1}, new int[] {3, 1}),
                model.expectedMax(new int[] {1, 0}, new int[] {1, 3}),
                1e-12);
    }

    @Test
    void workersWithoutTasksTakeNoPart() {
        TimeFit fast = shiftedExponential(1, 1);
        TimeFit slow = shiftedExponential(100, 0.01);
        RoundTimeModel model = model(50, fast, slow);
        assertEquals(
                model.expectedMax(new int[] {0}, new int[] {2}),
                model.expectedMax(new int[] {0, 1}, new int[] {2, 0}),
                0);
    }

    @Test
    void massBeyondTheHorizonIsChargedForAnotherHorizon() {
        // Exp(1) with a horizon of 1: the grid gives the integral of e^-t up to 1, then e^-1 * 1
        TimeFit fit = shiftedExponential(0, 1);
        RoundTimeModel model = model(1, fit);
        double expected = (1 - Math.exp(-1)) + Math.exp(-1);
        assertEquals(expected, model.expectedMax(new int[] {0}, new int[] {1}), 1e-6);
    }

    @Test
    void eachWorkersFitIsAskedForOnce() {
        List<Integer> asked = new ArrayList<>();
        TimeFit fit = shiftedExponential(0, 1);
        RoundTimeModel model = new RoundTimeModel(w -> {
            asked.add(w);
            return fit;
        });
        model.setHorizon(30);
        double first = model.expectedMax(new int[] {4, 7}, new int[] {1, 2});
        double again = model.expectedMax(new int[] {7, 4}, new int[] {2, 1});
        assertEquals(first, again, 1e-12);
        assertEquals(List.of(4, 7), asked);
        assertSame(fit, model.fit(4));
    }

    /** Simpson's rule on [0, end] with many panels: the reference the grid is compared with. */
    private static double integral(DoubleUnaryOperator f, double end) {
        int panels = 200_000;
        double h = end / panels;
        double sum = f.applyAsDouble(0) + f.applyAsDouble(end);
        for (int i = 1; i < panels; i++) {
            sum += (i % 2 == 1 ? 4 : 2) * f.applyAsDouble(i * h);
        }
        return sum * h / 3;
    }
}
