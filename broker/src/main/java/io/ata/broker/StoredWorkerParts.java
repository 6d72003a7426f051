package io.ata.broker;

import io.ata.allocation.WorkerStats;
import java.util.Arrays;

/**
 * What the store holds of each worker of one job, as last written or read: the next store writes
 * only the workers whose part differs. A learned part is kept with its policy's change count, so
 * that an unchanged count spares building the part to compare it. Liveness is not part of it: it is the membership's, and a
 * worker coming or going would cost a write in every job. Kept as the values themselves, not a hash of them, so that no
 * change can be missed; about 100 bytes a worker.
 */
final class StoredWorkerParts {
    /** The change count of a learned part read from the store: none, so the next store compares its bytes. */
    static final long UNKNOWN_CHANGES = -1;

    private static final byte[] NONE = {};

    private int size;
    private long[] count = new long[0];
    private double[] sum = new double[0];
    private double[] squares = new double[0];
    private double[] cubes = new double[0];
    private double[] censored = new double[0];
    private long[] observed = new long[0];
    private long[] learnedChanges = new long[0];
    private byte[][] learned = new byte[0][];

    /** Whether worker {@code i}'s part counts as stored: written, read, or a fresh worker's the roster stands for. */
    boolean has(int i) {
        return i < size;
    }

    /** Whether worker {@code i}'s statistics and observed count are the stored ones. */
    boolean sameStatistics(int i, WorkerStats stats, long observedNow) {
        return i < size
                && count[i] == stats.count(i)
                && same(sum[i], stats.sum(i))
                && same(squares[i], stats.sumSquares(i))
                && same(cubes[i], stats.sumCubes(i))
                && same(censored[i], stats.censoredTime(i))
                && observed[i] == observedNow;
    }

    /**
     * Whether worker {@code i}'s learned part is the stored one by its policy's change count
     * ({@code LearnedParts#changes}): the same count, the same part, without building it.
     */
    boolean sameChanges(int i, long changesNow) {
        return i < size && learnedChanges[i] == changesNow;
    }

    /** Whether worker {@code i}'s learned part is the stored one, byte for byte. */
    boolean sameLearned(int i, byte[] learnedNow) {
        return i < size && Arrays.equals(learned[i], learnedNow);
    }

    /**
     * Worker {@code i}'s part is stored as it is now, its learned part at change count
     * {@code changesNow} ({@link #UNKNOWN_CHANGES} if that is not known); every worker below
     * {@code i} is stored too.
     */
    void stored(int i, WorkerStats stats, long observedNow, long changesNow, byte[] learnedNow) {
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
        learnedChanges[i] = changesNow;
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
            learnedChanges = Arrays.copyOf(learnedChanges, capacity);
            learned = Arrays.copyOf(learned, capacity);
        }
        size++;
    }

    /** Equal as stored: bit for bit, so that NaN equals NaN and -0.0 is not 0.0. */
    private static boolean same(double a, double b) {
        return Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(b);
    }
}
