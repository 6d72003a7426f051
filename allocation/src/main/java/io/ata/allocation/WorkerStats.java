package io.ata.allocation;

import java.util.Arrays;

/**
 * Per-worker compute-time statistics, the only state the learning policies keep.
 *
 * <p>Workers are dense indices {@code 0..size()-1}. For each: the number of completed tasks
 * {@code K_i}, the sum of their durations {@code T_i}, the sums of squares and cubes (for
 * variance and skew), and the time spent on tasks that were cancelled before they finished
 * (censored work, e.g. under greedy collection). A worker can be marked inactive (it left the
 * fleet); inactive workers keep their history but receive no tasks.
 *
 * <p>The same class backs the simulator, the timing-log replay and the Kafka Streams broker, so
 * a policy sees identical statistics after identical observations, wherever it runs.
 */
public final class WorkerStats {
    private long[] count;
    private double[] sum;
    private double[] sumSquares;
    private double[] sumCubes;
    private double[] censoredTime;
    private boolean[] active;
    private int size;
    private long totalCount;
    private long membershipVersion;

    public WorkerStats(int workers) {
        int capacity = Math.max(4, workers);
        count = new long[capacity];
        sum = new double[capacity];
        sumSquares = new double[capacity];
        sumCubes = new double[capacity];
        censoredTime = new double[capacity];
        active = new boolean[capacity];
        for (int i = 0; i < workers; i++) {
            addWorker();
        }
    }

    /** Adds an active, unexplored worker and returns its index. */
    public int addWorker() {
        if (size == count.length) {
            int capacity = size * 2;
            count = Arrays.copyOf(count, capacity);
            sum = Arrays.copyOf(sum, capacity);
            sumSquares = Arrays.copyOf(sumSquares, capacity);
            sumCubes = Arrays.copyOf(sumCubes, capacity);
            censoredTime = Arrays.copyOf(censoredTime, capacity);
            active = Arrays.copyOf(active, capacity);
        }
        active[size] = true;
        membershipVersion++;
        return size++;
    }

    public int size() {
        return size;
    }

    public boolean isActive(int worker) {
        return active[worker];
    }

    public void setActive(int worker, boolean isActive) {
        if (active[worker] != isActive) {
            active[worker] = isActive;
            membershipVersion++;
        }
    }

    /** Changes whenever a worker joins, leaves or comes back: lets policies drop cached plans. */
    public long membershipVersion() {
        return membershipVersion;
    }

    /** Folds one completed task of {@code worker} that took {@code duration}. */
    public void record(int worker, double duration) {
        if (!(duration >= 0) || duration == Double.POSITIVE_INFINITY) {
            throw new IllegalArgumentException("duration must be finite and >= 0, was " + duration);
        }
        count[worker]++;
        totalCount++;
        sum[worker] += duration;
        double square = duration * duration;
        sumSquares[worker] += square;
        sumCubes[worker] += square * duration;
    }

    /** Folds time spent on a task of {@code worker} that was cancelled before it finished. */
    public void recordCensored(int worker, double elapsed) {
        if (!(elapsed >= 0) || elapsed == Double.POSITIVE_INFINITY) {
            throw new IllegalArgumentException("elapsed time must be finite and >= 0, was " + elapsed);
        }
        censoredTime[worker] += elapsed;
    }

    /** Sets worker {@code worker}'s sums, e.g. from a checkpoint. */
    public void restore(int worker, long count, double sum, double sumSquares, double sumCubes, double censoredTime) {
        if (count < 0 || !(sum >= 0) || !(sumSquares >= 0) || !(censoredTime >= 0)) {
            throw new IllegalArgumentException("invalid statistics for worker " + worker);
        }
        totalCount += count - this.count[worker];
        this.count[worker] = count;
        this.sum[worker] = sum;
        this.sumSquares[worker] = sumSquares;
        this.sumCubes[worker] = sumCubes;
        this.censoredTime[worker] = censoredTime;
    }

    public double sumSquares(int worker) {
        return sumSquares[worker];
    }

    public double sumCubes(int worker) {
        return sumCubes[worker];
    }

    /** {@code K_i}: completed tasks observed. */
    public long count(int worker) {
        return count[worker];
    }

    /** Completed tasks observed over all workers. */
    public long totalCount() {
        return totalCount;
    }

    /** {@code T_i}: summed durations of the completed tasks. */
    public double sum(int worker) {
        return sum[worker];
    }

    public double censoredTime(int worker) {
        return censoredTime[worker];
    }

    /**
     * Mean task time: (completed time + censored time) / completed tasks. Without censoring this
     * is the plain {@code T_i / K_i}; with it, it is the "total time on test" estimator, exact
     * (maximum likelihood) for exponential times, so cancelled work does not bias the mean down.
     */
    public double mean(int worker) {
        long k = count[worker];
        return k == 0 ? Double.NaN : (sum[worker] + censoredTime[worker]) / k;
    }

    /** Unbiased sample variance of completed durations (NaN below two observations). */
    public double variance(int worker) {
        long k = count[worker];
        if (k < 2) {
            return Double.NaN;
        }
        double m = sum[worker] / k;
        return Math.max(0, (sumSquares[worker] - k * m * m) / (k - 1));
    }

    /** Third central moment of completed durations (NaN below three observations). */
    public double thirdCentralMoment(int worker) {
        long k = count[worker];
        if (k < 3) {
            return Double.NaN;
        }
        double m = sum[worker] / k;
        double m2 = sumSquares[worker] / k;
        double m3 = sumCubes[worker] / k;
        return m3 - 3 * m * m2 + 2 * m * m * m;
    }

    /** A deep copy, e.g. for checkpoints and for comparing the live broker with a replay. */
    public WorkerStats copy() {
        WorkerStats c = new WorkerStats(0);
        c.count = count.clone();
        c.sum = sum.clone();
        c.sumSquares = sumSquares.clone();
        c.sumCubes = sumCubes.clone();
        c.censoredTime = censoredTime.clone();
        c.active = active.clone();
        c.size = size;
        c.totalCount = totalCount;
        c.membershipVersion = membershipVersion;
        return c;
    }
}
