package io.ata.lab.sim;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.workloads.QuadraticProblem;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import java.util.List;
import java.util.Map;

/** Runs the linear model the way the command line does, for the tests. */
public final class SimulationTestSupport {
    private SimulationTestSupport() {}

    static Map<String, List<RunResult>> linear(
            int workers,
            long rounds,
            String policies,
            ConstantConvention convention,
            long seed,
            int seeds,
            boolean train) {
        TaskTimeDistribution[] model = TimeModels.byName("linear", workers);
        PolicyContext context =
                new PolicyContext(workers, 23, TimeModels.means(model), convention, Double.NaN, Double.NaN, "none");
        Experiment.Setup setup = new Experiment.Setup(
                context,
                PolicyFactory.parseList(policies),
                rounds,
                seed,
                seeds,
                s -> new ModelDurations(model, s),
                train ? QuadraticProblem.paper() : null,
                2,
                List.of(StatisticsAge.FRESH));
        return Experiment.run(setup, null);
    }

    static RunResult only(Map<String, List<RunResult>> results, String policy) {
        return results.get(policy).get(0);
    }

    public static void assertWithin(double expected, double actual, double relative, String what) {
        double error = Math.abs(actual - expected) / expected;
        if (error > relative) {
            throw new AssertionError(String.format(
                    "%s: expected %.4g within %.1f%%, got %.4g (%.2f%% off)",
                    what, expected, 100 * relative, actual, 100 * error));
        }
    }
}
