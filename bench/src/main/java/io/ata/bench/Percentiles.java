package io.ata.bench;

/** The percentiles the benches report, by one rule: the nearest rank. */
public final class Percentiles {
    private Percentiles() {}

    /**
     * The {@code q}-quantile (0 to 1) of {@code sorted}, by nearest rank: the smallest value with at
     * least {@code q} of the values at or below it; NaN if there are none.
     */
    public static double of(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
}
