package io.ata.allocation.policy;

import io.ata.allocation.WorkerStats;

/**
 * When a running task is overdue: the documented rule behind backup tasks.
 *
 * <pre>
 *   deadline(i) = floor + clamp(q(i), LOW x mean(i), HIGH x mean(i))
 * </pre>
 * where {@code q(i)} is the 99.9% quantile of worker {@code i}'s fitted task time ({@link TimeFit}:
 * a shifted Gamma matched to its observed moments; the Gamma quantile by the Wilson-Hilferty
 * approximation), {@code mean(i)} its mean task time, {@code LOW = 1.5} and {@code HIGH = 2}.
 *
 * <p>Why these bounds: the quantile alone says what the worker's own history makes implausible,
 * so near-constant workers (a GPU) are called overdue soon after their usual time; but it is at
 * least 1.5 means, so that the small spread of a near-constant worker does not make every jitter a
 * backup; and at most 2 means, so that the deadline plus one backup copy on a worker as fast stays
 * within three expected task times: the bound a frozen worker may delay a round by. The {@code
 * floor} (0 in the simulator; the control overhead of a live deployment, in its time unit) keeps a
 * delivery hiccup from looking like a slow worker.
 *
 * <p>A worker with fewer than {@link #MIN_SAMPLES} completed tasks has no deadline: its fit says
 * nothing yet.
 *
 * <p>Being overdue is common (5% of the paper's shifted exponential tasks run past two means);
 * being stuck is not: a worker still running its overdue task after {@code t} with
 * {@code P(T > t) < }{@link #IMPLAUSIBLE} under its fit is frozen, hung or far slower than it was.
 */
final class DeadlineRule {
    static final double QUANTILE_Z = 3.0902; // standard normal quantile of 0.999
    static final double LOW = 1.5;
    static final double HIGH = 2.0;
    static final long MIN_SAMPLES = 2;
    /** The survival probability below which a task's running time is no longer plausible. */
    static final double IMPLAUSIBLE = 1e-3;

    private final double floor;

    /** @param floor added to every deadline, in the time unit of the statistics; {@code >= 0} */
    DeadlineRule(double floor) {
        if (!(floor >= 0) || Double.isInfinite(floor)) {
            throw new IllegalArgumentException("deadline floor must be finite and >= 0, was " + floor);
        }
        this.floor = floor;
    }

    double floor() {
        return floor;
    }

    /** Time after a task of {@code worker} started beyond which it is overdue; infinite without a fit. */
    double deadline(WorkerStats stats, int worker) {
        if (stats.count(worker) < MIN_SAMPLES) {
            return Double.POSITIVE_INFINITY;
        }
        double mean = stats.mean(worker);
        double quantile = quantile(TimeFit.of(stats, worker));
        return floor + Math.min(HIGH * mean, Math.max(LOW * mean, quantile));
    }

    /** True if a task of {@code worker} still running after {@code elapsed} is implausible under its fit. */
    boolean implausible(WorkerStats stats, int worker, double elapsed) {
        if (stats.count(worker) < MIN_SAMPLES) {
            return false;
        }
        return 1 - TimeFit.of(stats, worker).cdfOfSum(1, elapsed) < IMPLAUSIBLE;
    }

    /** The 99.9% quantile of a shifted Gamma, by Wilson-Hilferty: {@code k s (1 - 1/9k + z / 3 sqrt(k))^3}. */
    static double quantile(TimeFit fit) {
        double k = fit.shape;
        double cube = 1 - 1 / (9 * k) + QUANTILE_Z / (3 * Math.sqrt(k));
        return fit.shift + k * fit.scale * Math.max(0, cube * cube * cube);
    }
}
