package io.ata.policy;

import static io.ata.policy.PolicyDefinition.named;
import static io.ata.policy.PolicyDefinition.withParameter;

import io.ata.policy.ConfidenceWidth.Form;
import java.util.List;

/**
 * The policies this project ships, in the order help texts list them: the one place a built-in
 * policy is registered. {@link PolicyRegistry#standard()} puts them first.
 */
final class BuiltInPolicies implements PolicyProvider {

    @Override
    public List<PolicyDefinition> policies() {
        return List.of(
                named(
                        "fta",
                        "oracle: proxy-optimal allocation for the true means",
                        (name, context, seed, stats) -> new FixedAllocationPolicy(
                                name,
                                FixedAllocationPolicy.Rule.PROXY_OPTIMAL,
                                stats,
                                context.batch(),
                                context.requireMeans(name))),
                named(
                        "uta",
                        "uniform split",
                        (name, context, seed, stats) -> new UniformPolicy(stats, context.batch(), seed)),
                named(
                        "gta",
                        "greedy: every worker busy, first B results kept",
                        (name, context, seed, stats) -> new GreedyPolicy(stats, context.batch())),
                named(
                        "ata",
                        "ATA, absolute width (needs alpha under paper constants)",
                        (name, context, seed, stats) ->
                                new LcbPolicy(name, stats, ataWidth(context), context.batch(), context.batch(), seed)),
                named(
                        "ata-empirical",
                        "ATA-Empirical, relative width (needs eta under paper constants)",
                        (name, context, seed, stats) -> new LcbPolicy(
                                name, stats, empiricalWidth(context), context.batch(), context.batch(), seed)),
                named(
                        "ata-auto",
                        "ATA-Empirical with eta estimated online and the exact (ratio) form of the bound",
                        (name, context, seed, stats) -> new LcbPolicy(
                                name, stats, autoWidth(Form.RATIO, seed), context.batch(), context.batch(), seed)),
                named(
                        "ata-auto-subtractive",
                        "the same with the paper's subtractive score (ablation)",
                        (name, context, seed, stats) -> new LcbPolicy(
                                name,
                                stats,
                                autoWidth(Form.SUBTRACTIVE, seed),
                                context.batch(),
                                context.batch(),
                                seed)),
                named(
                        "ata-ert",
                        "ata-auto refined to minimise the expected round time",
                        (name, context, seed, stats) -> new ExpectedTimePolicy(
                                new LcbPolicy(
                                        "ata-auto",
                                        stats,
                                        autoWidth(Form.RATIO, seed),
                                        context.batch(),
                                        context.batch(),
                                        seed),
                                context.batch())),
                withParameter(
                        "ata-hedge",
                        "R",
                        "ata-auto allocating B+R tasks, first B kept (time/cost knob)",
                        BuiltInPolicies::extraTasks,
                        (name, context, seed, stats) -> new LcbPolicy(
                                name,
                                stats,
                                autoWidth(Form.RATIO, seed),
                                context.batch(),
                                context.batch() + extraTasks(name, name.substring(name.indexOf(':') + 1)),
                                seed)),
                named(
                        "proportional",
                        "static shares proportional to known speeds",
                        (name, context, seed, stats) -> new FixedAllocationPolicy(
                                name,
                                FixedAllocationPolicy.Rule.PROPORTIONAL,
                                stats,
                                context.batch(),
                                context.requireMeans(name))),
                named(
                        "adaptive-proportional",
                        "shares proportional to measured speeds",
                        (name, context, seed, stats) -> new AdaptiveProportionalPolicy(stats, context.batch(), seed)));
    }

    /** R of {@code ata-hedge:R}: the tasks queued beyond the B the round keeps. */
    private static int extraTasks(String name, String argument) {
        try {
            int r = Integer.parseInt(argument);
            if (r < 0) {
                throw new NumberFormatException();
            }
            return r;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + name + "': the number of extra tasks must be an integer >= 0", e);
        }
    }

    private static ConfidenceWidth ataWidth(PolicyContext context) {
        ConstantConvention convention = context.convention();
        if (convention == ConstantConvention.EXPERIMENTS) {
            double maxMean = context.maxTrueMean();
            return new ConfidenceWidth.Absolute(
                    convention.ataWidth(Double.NaN, maxMean),
                    String.format("constants=experiments alpha=2*max(mu)=%.6g", 2 * maxMean));
        }
        if (Double.isNaN(context.alpha())) {
            throw new IllegalArgumentException("ata with paper constants needs --alpha (or use ata-auto)");
        }
        return new ConfidenceWidth.Absolute(
                convention.ataWidth(context.alpha(), Double.NaN),
                String.format("constants=paper alpha=%.6g (%s)", context.alpha(), context.constantsSource()));
    }

    private static ConfidenceWidth empiricalWidth(PolicyContext context) {
        ConstantConvention convention = context.convention();
        if (convention == ConstantConvention.EXPERIMENTS) {
            return new ConfidenceWidth.Relative(convention.empiricalWidth(Double.NaN), "constants=experiments eta=2");
        }
        if (Double.isNaN(context.eta())) {
            throw new IllegalArgumentException("ata-empirical with paper constants needs --eta (or use ata-auto)");
        }
        return new ConfidenceWidth.Relative(
                convention.empiricalWidth(context.eta()),
                String.format("constants=paper eta=%.6g (%s)", context.eta(), context.constantsSource()));
    }

    private static ConfidenceWidth autoWidth(Form form, long seed) {
        return new EstimatedRelativeWidth(2.0, form, seed);
    }
}
