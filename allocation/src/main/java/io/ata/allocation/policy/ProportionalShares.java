package io.ata.allocation.policy;

import java.util.Arrays;

/** Splits a batch in proportion to worker speeds {@code 1/mu_i}, by largest remainders. */
final class ProportionalShares {
    private ProportionalShares() {}

    /**
     * Writes into {@code allocation[workers[k]]} (or {@code allocation[k]} when {@code workers}
     * is null) shares of {@code batch} proportional to {@code 1/means[k]}, summing to exactly
     * {@code batch}. Remainders are settled largest first, ties to the lower index.
     */
    static void allocate(double[] means, int[] workers, int m, int batch, int[] allocation) {
        // A worker with mean 0 is infinitely fast: such workers share the whole batch evenly.
        int instant = 0;
        for (int k = 0; k < m; k++) {
            instant += means[k] <= 0 ? 1 : 0;
        }
        if (instant > 0) {
            int given = 0;
            for (int k = 0; k < m; k++) {
                if (means[k] <= 0) {
                    int share = batch / instant + (given < batch % instant ? 1 : 0);
                    allocation[workers == null ? k : workers[k]] += share;
                    given++;
                }
            }
            return;
        }
        double speedSum = 0;
        for (int k = 0; k < m; k++) {
            speedSum += 1 / means[k];
        }
        double[] remainder = new double[m];
        Integer[] order = new Integer[m];
        int assigned = 0;
        for (int k = 0; k < m; k++) {
            double exact = batch * (1 / means[k]) / speedSum;
            int share = (int) Math.floor(exact);
            remainder[k] = exact - share;
            order[k] = k;
            allocation[workers == null ? k : workers[k]] += share;
            assigned += share;
        }
        Arrays.sort(order, (x, y) -> {
            int c = Double.compare(remainder[y], remainder[x]);
            return c != 0 ? c : Integer.compare(x, y);
        });
        for (int r = 0; r < batch - assigned; r++) {
            int k = order[r];
            allocation[workers == null ? k : workers[k]]++;
        }
    }
}
