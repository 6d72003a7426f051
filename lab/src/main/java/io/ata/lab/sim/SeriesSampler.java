package io.ata.lab.sim;

import java.util.Arrays;
import java.util.TreeSet;

/**
 * The rounds at which a run's per-round metrics are kept: every round up to 100, then about
 * 600 geometrically spaced and 1000 evenly spaced rounds up to the last. Enough for smooth
 * charts on linear and log axes, small enough to write for every policy and seed.
 */
public final class SeriesSampler {
    private SeriesSampler() {}

    public static long[] rounds(long lastRound) {
        TreeSet<Long> points = new TreeSet<>();
        for (long k = 1; k <= Math.min(100, lastRound); k++) {
            points.add(k);
        }
        if (lastRound > 100) {
            double ratio = Math.pow(lastRound / 100.0, 1.0 / 600);
            double k = 100;
            while (k < lastRound) {
                k *= ratio;
                points.add(Math.min(lastRound, Math.round(k)));
            }
            for (int i = 1; i <= 1000; i++) {
                points.add(Math.max(1, lastRound * i / 1000));
            }
        }
        points.add(lastRound);
        return points.stream().mapToLong(Long::longValue).toArray();
    }

    /** Index of {@code round} in {@code sampled}, or -1. */
    public static int indexOf(long[] sampled, long round) {
        int i = Arrays.binarySearch(sampled, round);
        return i >= 0 ? i : -1;
    }
}
