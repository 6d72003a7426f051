package io.ata.allocation.policy;

/**
 * The sub-exponential (Orlicz psi_1) norm {@code inf {C > 0 : E exp(|Y| / C) <= 2}} of an
 * empirical sample, the quantity ATA's constants {@code alpha} and {@code eta} are made of.
 */
public final class Psi1Norm {
    private Psi1Norm() {}

    /** psi_1 norm of the first {@code m} values (already centred if that is what you want). */
    public static double of(double[] values, int m) {
        double maxAbs = 0;
        for (int i = 0; i < m; i++) {
            maxAbs = Math.max(maxAbs, Math.abs(values[i]));
        }
        if (m == 0 || maxAbs == 0) {
            return 0;
        }
        // E exp(|Y|/C) falls as C grows. At C = maxAbs / ln 2 every term is <= 2, so the norm is
        // at most that; bisect in log space down from there.
        double hi = maxAbs / Math.log(2);
        double lo = hi * 1e-6;
        for (int iter = 0; iter < 60; iter++) {
            double mid = Math.sqrt(lo * hi);
            if (meanExp(values, m, mid) <= 2) {
                hi = mid;
            } else {
                lo = mid;
            }
            if (hi / lo < 1 + 1e-9) {
                break;
            }
        }
        return hi;
    }

    private static double meanExp(double[] values, int m, double c) {
        double total = 0;
        double inv = 1 / c;
        for (int i = 0; i < m; i++) {
            total += Math.exp(Math.abs(values[i]) * inv);
            if (total > 2.0 * m) {
                return Double.POSITIVE_INFINITY; // already above 2 on average; stop early
            }
        }
        return total / m;
    }
}
