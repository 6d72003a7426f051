package io.ata.allocation.policy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * The expected round time of an allocation, {@code E[max_i S_i(a_i)]} where {@code S_i(a_i)} is
 * the time worker {@code i} takes for its {@code a_i} tasks. With the workers independent,
 * {@code P(max <= t) = prod_i F_i(t)} and so {@code E[max] = integral of 1 - prod_i F_i(t) dt},
 * each {@code F_i} the distribution of a sum of tasks under the worker's {@link TimeFit}.
 *
 * <p>The integral is taken on a fixed grid up to a horizon, for one refresh period of
 * {@link ExpectedTimePolicy}: the fit and the CDF of every (worker, task count) pair are computed
 * once and reused by every allocation the policy tries.
 */
final class RoundTimeModel {
    /** Grid intervals between 0 and the horizon. */
    static final int GRID = 768;

    private final IntFunction<TimeFit> fitOf;
    private final Map<Integer, TimeFit> fits = new HashMap<>();
    private final Map<Long, double[]> cdfs = new HashMap<>();
    private final double[] product = new double[GRID + 1];
    private double horizon;
    private double step;

    /** @param fitOf each worker's fit, asked for once per worker */
    RoundTimeModel(IntFunction<TimeFit> fitOf) {
        this.fitOf = fitOf;
    }

    /**
     * The model {@link #snapshot()} describes, predicting exactly as the one it was taken of: its
     * horizon and its fits; a worker it had not fitted yet is asked of {@code fitOf} when needed.
     */
    RoundTimeModel(IntFunction<TimeFit> fitOf, ExpectedTimeState.Model snapshot) {
        this(fitOf);
        setHorizon(snapshot.horizon());
        for (int k = 0; k < snapshot.workers().length; k++) {
            fits.put(snapshot.workers()[k], snapshot.fits()[k]);
        }
    }

    TimeFit fit(int worker) {
        return fits.computeIfAbsent(worker, fitOf::apply);
    }

    /** Sets where the grid ends; to be called before the first {@link #expectedMax}. */
    void setHorizon(double horizon) {
        this.horizon = horizon;
        this.step = horizon / GRID;
    }

    /**
     * The horizon and the fits made so far, by worker: what the fits depended on (the statistics
     * when each was made) is gone, so a restored model needs them. The CDFs follow from these.
     */
    ExpectedTimeState.Model snapshot() {
        int[] workers =
                fits.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
        TimeFit[] fitted = new TimeFit[workers.length];
        for (int k = 0; k < workers.length; k++) {
            fitted[k] = fits.get(workers[k]);
        }
        return new ExpectedTimeState.Model(horizon, workers, fitted);
    }

    private double[] cdf(int worker, int count) {
        return cdfs.computeIfAbsent(((long) worker << 32) | count, key -> {
            TimeFit f = fit(worker);
            double[] values = new double[GRID + 1];
            for (int g = 0; g <= GRID; g++) {
                values[g] = f.cdfOfSum(count, g * step);
            }
            return values;
        });
    }

    /**
     * {@code E[max_k S(workers[k], a[k])]}: the expected time until every worker with tasks is done.
     * Workers with {@code a[k] == 0} take no part.
     */
    double expectedMax(int[] workers, int[] a) {
        Arrays.fill(product, 1.0);
        for (int k = 0; k < a.length; k++) {
            if (a[k] > 0) {
                double[] f = cdf(workers[k], a[k]);
                for (int g = 0; g <= GRID; g++) {
                    product[g] *= f[g];
                }
            }
        }
        // E[C] = integral of P(C > t). Past the horizon P(C > t) is charged as if it stayed at
        // its horizon value for another horizon: allocations reaching past it look worse.
        double total = 0;
        for (int g = 0; g < GRID; g++) {
            total += 0.5 * ((1 - product[g]) + (1 - product[g + 1])) * step;
        }
        return total + (1 - product[GRID]) * GRID * step;
    }
}
