package io.ata.allocation.policy;

import java.util.Arrays;

/** Per worker index, how many times its part of a split learned state may have changed ({@link LearnedParts#changes}). */
final class ChangeCounts {
    private long[] counts = new long[0];

    /** Worker {@code w}'s part may have changed. */
    void changed(int w) {
        if (w >= counts.length) {
            counts = Arrays.copyOf(counts, Math.max(w + 1, 2 * counts.length));
        }
        counts[w]++;
    }

    /** The parts of workers {@code 0..workers-1} may all have changed (a restore). */
    void allChanged(int workers) {
        for (int w = 0; w < workers; w++) {
            changed(w);
        }
    }

    long of(int w) {
        return w < counts.length ? counts[w] : 0;
    }
}
