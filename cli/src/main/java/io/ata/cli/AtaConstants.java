package io.ata.cli;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.lab.report.RunInfo;
import io.ata.lab.sim.SubExponentialConstants;
import java.util.Map;
import java.util.function.Supplier;

/**
 * ATA's confidence constants for one run and where they came from. Under the {@code paper}
 * convention ATA needs alpha and ATA-Empirical needs eta: the user's values if given, else the
 * values measured from the fleet (the "true" constants a simulator can know). Every report says
 * which, since the constants decide how fast ATA learns.
 *
 * @param alpha  ATA's constant, NaN under {@code experiments}
 * @param eta    ATA-Empirical's constant, NaN under {@code experiments}
 * @param source      where alpha and eta came from, as policies' descriptions show it: "user", the
 *                    measured source (e.g. "time model", "log"), or both when they differ
 * @param alphaOrigin where alpha came from, in a sentence for run.txt
 * @param etaOrigin   where eta came from, in a sentence for run.txt
 */
record AtaConstants(
        ConstantConvention convention, double alpha, double eta, String source, String alphaOrigin, String etaOrigin) {

    /**
     * @param options      the user's --constants, --alpha and --eta
     * @param measure      measures both constants from the fleet; called only if a value is missing
     * @param measuredFrom short name of what {@code measure} measures, e.g. "time model" or "log"
     * @param measuredHow  how it measures, for run.txt
     */
    static AtaConstants choose(
            ExperimentOptions options,
            Supplier<SubExponentialConstants> measure,
            String measuredFrom,
            String measuredHow) {
        if (options.constants == ConstantConvention.EXPERIMENTS) {
            String origin = "not used: the experiments convention derives the widths from the true means";
            return new AtaConstants(
                    options.constants, Double.NaN, Double.NaN, "experiments convention", origin, origin);
        }
        SubExponentialConstants measured = options.alpha != null && options.eta != null ? null : measure.get();
        double alpha = options.alpha != null ? options.alpha : measured.alpha();
        double eta = options.eta != null ? options.eta : measured.eta();
        String alphaSource = options.alpha != null ? "user" : measuredFrom;
        String etaSource = options.eta != null ? "user" : measuredFrom;
        String source = alphaSource.equals(etaSource) ? alphaSource : "alpha: " + alphaSource + ", eta: " + etaSource;
        return new AtaConstants(
                options.constants,
                alpha,
                eta,
                source,
                origin(alphaSource, measuredHow),
                origin(etaSource, measuredHow));
    }

    private static String origin(String source, String measuredHow) {
        return source.equals("user") ? "given by the user" : "measured from the " + source + ": " + measuredHow;
    }

    /** What the policies are told about the fleet. */
    PolicyContext context(int workers, int batch, double[] trueMeans) {
        return new PolicyContext(workers, batch, trueMeans, convention, alpha, eta, source);
    }

    /** Adds the convention, alpha and eta, with their origin, to run.txt's settings. */
    void describeInto(Map<String, String> settings) {
        settings.put(
                "constants",
                convention.label()
                        + (convention == ConstantConvention.PAPER
                                ? " (ATA width c = 2 alpha, ATA-Empirical c_rel = 2 eta)"
                                : " (ATA c = 4e * 2 max(mu) from the true means, ATA-Empirical c_rel = 4e * 2)"));
        settings.put("alpha", Double.isNaN(alpha) ? alphaOrigin : format(alpha) + " (" + alphaOrigin + ")");
        settings.put("eta", Double.isNaN(eta) ? etaOrigin : format(eta) + " (" + etaOrigin + ")");
    }

    private static String format(double v) {
        return RunInfo.number(v);
    }
}
