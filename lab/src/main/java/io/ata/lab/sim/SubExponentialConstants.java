package io.ata.lab.sim;

import io.ata.allocation.policy.Psi1Norm;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import java.util.SplittableRandom;

/**
 * ATA's constants measured from a fleet's time distributions (or recorded durations):
 * {@code alpha = max_i ||X_i - mu_i||_psi1} and {@code eta = max_i alpha_i / mu_i}. The simulator
 * uses them as the "true" constants when the user gives none under the {@code paper} convention.
 *
 * @param alpha ATA's absolute constant
 * @param eta   ATA-Empirical's relative constant
 */
public record SubExponentialConstants(double alpha, double eta) {
    private static final int SAMPLES_PER_WORKER = 4000;

    /** Estimates both constants from {@value #SAMPLES_PER_WORKER} draws per worker, seeded. */
    public static SubExponentialConstants of(TaskTimeDistribution[] distributions, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        double[][] samples = new double[distributions.length][SAMPLES_PER_WORKER];
        for (int i = 0; i < distributions.length; i++) {
            for (int k = 0; k < SAMPLES_PER_WORKER; k++) {
                samples[i][k] = distributions[i].sample(rng);
            }
        }
        return ofSamples(samples, TimeModels.means(distributions));
    }

    /** From recorded durations per worker, centred on the given means (e.g. the log's own means). */
    public static SubExponentialConstants ofSamples(double[][] durations, double[] means) {
        double alpha = 0;
        double eta = 0;
        for (int i = 0; i < durations.length; i++) {
            double[] centred = new double[durations[i].length];
            for (int k = 0; k < centred.length; k++) {
                centred[k] = durations[i][k] - means[i];
            }
            double a = Psi1Norm.of(centred, centred.length);
            alpha = Math.max(alpha, a);
            if (means[i] > 0) {
                eta = Math.max(eta, a / means[i]);
            }
        }
        return new SubExponentialConstants(alpha, eta);
    }
}
