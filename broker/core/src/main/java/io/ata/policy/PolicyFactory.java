package io.ata.policy;

import io.ata.core.WorkerStats;
import io.ata.policy.ConfidenceWidth.Form;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Builds policies from the names used on the command line, in the broker's job configuration
 * and in reports. Each call returns fresh state, seeded, so runs are reproducible.
 *
 * <table>
 *   <caption>policy names</caption>
 *   <tr><td>{@code fta}</td><td>oracle: proxy-optimal allocation for the true means</td></tr>
 *   <tr><td>{@code uta}</td><td>uniform split</td></tr>
 *   <tr><td>{@code gta}</td><td>greedy: every worker busy, first B results kept</td></tr>
 *   <tr><td>{@code ata}</td><td>ATA, absolute width (needs alpha under {@code paper})</td></tr>
 *   <tr><td>{@code ata-empirical}</td><td>ATA-Empirical, relative width (needs eta under {@code paper})</td></tr>
 *   <tr><td>{@code ata-auto}</td><td>ATA-Empirical with eta estimated online and the exact (ratio)
 *       form of the bound: no user constant</td></tr>
 *   <tr><td>{@code ata-auto-subtractive}</td><td>the same with the paper's subtractive score (ablation)</td></tr>
 *   <tr><td>{@code ata-ert}</td><td>ata-auto refined to minimise the expected round time</td></tr>
 *   <tr><td>{@code ata-hedge:R}</td><td>ata-auto allocating B+R tasks, first B kept (time/cost knob)</td></tr>
 *   <tr><td>{@code proportional}</td><td>static shares proportional to known speeds</td></tr>
 *   <tr><td>{@code adaptive-proportional}</td><td>shares proportional to measured speeds</td></tr>
 * </table>
 */
public final class PolicyFactory {
    public static final List<String> NAMES = List.of(
            "fta",
            "uta",
            "gta",
            "ata",
            "ata-empirical",
            "ata-auto",
            "ata-auto-subtractive",
            "ata-ert",
            "ata-hedge:R",
            "proportional",
            "adaptive-proportional");

    private PolicyFactory() {}

    /** Splits {@code "fta,ata, gta"} into names, rejecting unknown ones up front. */
    public static List<String> parseList(String commaSeparated) {
        List<String> names = new ArrayList<>();
        for (String part : commaSeparated.split(",")) {
            String name = part.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            validate(name);
            if (names.contains(name)) {
                throw new IllegalArgumentException("policy '" + name + "' listed twice");
            }
            names.add(name);
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("no policy given; known: " + String.join(", ", NAMES));
        }
        return names;
    }

    private static void validate(String name) {
        if (name.startsWith("ata-hedge:")) {
            hedgeExtra(name);
        } else if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", NAMES));
        }
    }

    private static int hedgeExtra(String name) {
        String value = name.substring("ata-hedge:".length());
        try {
            int r = Integer.parseInt(value);
            if (r < 0) {
                throw new NumberFormatException();
            }
            return r;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + name + "': the number of extra tasks must be an integer >= 0", e);
        }
    }

    /**
     * A policy named {@code name} reading membership and statistics from {@code stats}, which the
     * caller keeps up to date (folding each round's outcome before {@code observe}). {@code seed}
     * drives its tie-breaking, derived per round.
     */
    public static AllocationPolicy create(String name, PolicyContext context, long seed, WorkerStats stats) {
        validate(name);
        int b = context.batch();
        long policySeed = seed * 0x9E3779B97F4A7C15L + name.hashCode();
        if (name.startsWith("ata-hedge:")) {
            int extra = hedgeExtra(name);
            return new LcbPolicy(name, stats, autoWidth(Form.RATIO, policySeed), b, b + extra, policySeed);
        }
        return switch (name) {
            case "fta" ->
                new FixedAllocationPolicy(
                        "fta", FixedAllocationPolicy.Rule.PROXY_OPTIMAL, stats, b, context.requireMeans("fta"));
            case "proportional" ->
                new FixedAllocationPolicy(
                        "proportional",
                        FixedAllocationPolicy.Rule.PROPORTIONAL,
                        stats,
                        b,
                        context.requireMeans("proportional"));
            case "uta" -> new UniformPolicy(stats, b, policySeed);
            case "gta" -> new GreedyPolicy(stats, b);
            case "adaptive-proportional" -> new AdaptiveProportionalPolicy(stats, b, policySeed);
            case "ata" -> new LcbPolicy("ata", stats, ataWidth(context), b, b, policySeed);
            case "ata-empirical" -> new LcbPolicy("ata-empirical", stats, empiricalWidth(context), b, b, policySeed);
            case "ata-auto" -> new LcbPolicy(name, stats, autoWidth(Form.RATIO, policySeed), b, b, policySeed);
            case "ata-auto-subtractive" ->
                new LcbPolicy(name, stats, autoWidth(Form.SUBTRACTIVE, policySeed), b, b, policySeed);
            case "ata-ert" ->
                new ExpectedTimePolicy(
                        new LcbPolicy("ata-auto", stats, autoWidth(Form.RATIO, policySeed), b, b, policySeed), b);
            default -> throw new IllegalStateException("unhandled policy " + name);
        };
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
