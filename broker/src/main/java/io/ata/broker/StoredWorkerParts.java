package io.ata.broker;

import io.ata.allocation.WorkerStats;
import java.util.Arrays;

/**
 * What the store holds of each worker of one job, as last written or read: the next store writes
 * only the workers whose part differs. Liveness is not part of it: it is the membership's, and a
 * worker coming or going would cost a write in every job. Kept as the values themselves, not a hash of them, so that no
 * change can be missed; about 100 bytes a worker.
 */
final class StoredWorkerParts {
    private static final byte[] NONE = {};

    private int size;
    private long[] count = new long[0];
    private double[] sum = new double[0];
    private double[] squares = new double[0];
    private double[] cubes = new double[0];
    private double[] censored = new double[0];
    private long[] observed = new long[0];
    private byte[][] learned = new byte[0][];

    /** Whether worker {@code i}'s part counts as stored: written, read, or a fresh worker's the roster stands for. */
    boolean has(int i) {
        return i < size;
    }

    /** Whether worker {@code i}'s part as it is now differs from the stored one (or none is stored). */
    boolean differs(int i, WorkerStats stats, long observedNow, byte[] learnedNow) {
        return i >= size
                || count[i] != stats.count(i)
                || !same(sum[i], stats.sum(i))
                || !same(squares[i], stats.sumSquares(i))
                || !same(cubes[i], stats.sumCubes(i))
                || !same(censored[i], stats.censoredTime(i))
                || observed[i] != observedNow
                || !Arrays.equals(learned[i], learnedNow);
    }

    /** Worker {@code i}'s part is stored as it is now; every worker below {@code i} is too. */
    void stored(int i, WorkerStats stats, long observedNow, byte[] learnedNow) {
        if (i > size) {
            throw new IllegalArgumentException("worker " + i + " stored before worker " + size);
        }
        if (i == size) {
            grow();
        }
        count[i] = stats.count(i);
        sum[i] = stats.sum(i);
        squares[i] = stats.sumSquares(i);
        cubes[i] = stats.sumCubes(i);
        censored[i] = stats.censoredTime(i);
        observed[i] = observedNow;
        learned[i] = learnedNow.length == 0 ? NONE : learnedNow;
    }

    private void grow() {
        if (size == count.length) {
            int capacity = Math.max(8, size * 2);
            count = Arrays.copyOf(count, capacity);
            sum = Arrays.copyOf(sum, capacity);
            squares = Arrays.copyOf(squares, capacity);
            cubes = Arrays.copyOf(cubes, capacity);
            censored = Arrays.copyOf(censored, capacity);
            observed = Arrays.copyOf(observed, capacity);
            learned = Arrays.copyOf(learned, capacity);
        }
        size++;
    }

    /** Equal as stored: bit for bit, so that NaN equals NaN and -0.0 is not 0.0. */
    private static boolean same(double a, double b) {
        return Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(b);
    }
}
