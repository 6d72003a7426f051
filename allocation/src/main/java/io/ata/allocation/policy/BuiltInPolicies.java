package io.ata.allocation.policy;

import static io.ata.allocation.policy.PolicyDefinition.named;
import static io.ata.allocation.policy.PolicyDefinition.withParameter;

import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.ConfidenceWidth.Form;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The policies this project ships, in the order help texts list them: the one place a built-in
 * policy is registered. {@link PolicyRegistry#standard()} puts them first.
 */
final class BuiltInPolicies implements PolicyProvider {

    @Override
    public List<PolicyDefinition> policies() {
        return List.of(
                fixed(
                        "fta",
                        FixedAllocationPolicy.Rule.PROXY_OPTIMAL,
                        "oracle: proxy-optimal allocation for the true means"),
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
                        "ATA-Empirical with eta estimated online, the exact (ratio) form of the bound, "
                                + "re-learning of workers whose speed changes, and backup copies of overdue tasks",
                        (name, context, seed, stats) -> ataAuto(
                                name,
                                Form.RATIO,
                                0,
                                EnumSet.of(Adaptation.DRIFT, Adaptation.BACKUPS),
                                context,
                                seed,
                                stats)),
                named(
                        "ata-auto-no-drift",
                        "ata-auto whose statistics never forget (ablation of drift handling)",
                        (name, context, seed, stats) ->
                                ataAuto(name, Form.RATIO, 0, EnumSet.of(Adaptation.BACKUPS), context, seed, stats)),
                named(
                        "ata-auto-no-backup",
                        "ata-auto that waits for every allocated task (ablation of backup tasks)",
                        (name, context, seed, stats) ->
                                ataAuto(name, Form.RATIO, 0, EnumSet.of(Adaptation.DRIFT), context, seed, stats)),
                named(
                        "ata-auto-overhead",
                        "ata-auto allocating on end-to-end cost: compute plus each worker's learned delivery and "
                                + "publication overheads (live only; slower on the machines measured, see README)",
                        (name, context, seed, stats) -> ataAuto(
                                name,
                                Form.RATIO,
                                0,
                                EnumSet.of(Adaptation.DRIFT, Adaptation.BACKUPS, Adaptation.OVERHEAD),
                                context,
                                seed,
                                stats)),
                named(
                        "ata-auto-subtractive",
                        "ata-auto with the paper's subtractive score, without drift handling (ablation)",
                        (name, context, seed, stats) ->
                                ataAuto(name, Form.SUBTRACTIVE, 0, Set.of(), context, seed, stats)),
                named(
                        "ata-ert",
                        "ata-auto refined to minimise the expected round time",
                        (name, context, seed, stats) -> new ExpectedTimePolicy(
                                ataAuto("ata-auto", Form.RATIO, 0, Set.of(), context, seed, stats), context.batch())),
                withParameter(
                        "ata-hedge",
                        "R",
                        "ata-auto allocating B+R tasks, first B kept (time/cost knob)",
                        BuiltInPolicies::extraTasks,
                        (name, context, seed, stats) -> ataAuto(
                                name,
                                Form.RATIO,
                                extraTasks(name, name.substring(name.indexOf(':') + 1)),
                                Set.of(),
                                context,
                                seed,
                                stats)),
                fixed(
                        "proportional",
                        FixedAllocationPolicy.Rule.PROPORTIONAL,
                        "static shares proportional to known speeds"),
                named(
                        "adaptive-proportional",
                        "shares proportional to measured speeds",
                        (name, context, seed, stats) -> new AdaptiveProportionalPolicy(stats, context.batch(), seed)));
    }

    /** An allocation computed from the known means by {@code rule}. */
    private static PolicyDefinition fixed(String name, FixedAllocationPolicy.Rule rule, String description) {
        return named(
                name,
                description,
                (n, context, seed, stats) ->
                        new FixedAllocationPolicy(n, rule, stats, context.batch(), context.requireMeans(n)));
    }

    /** What {@code ata-auto} adds to ATA-Empirical; its ablations leave one out. */
    enum Adaptation {
        /** Re-learn a worker whose speed changes ({@link DriftDetector}). */
        DRIFT,
        /** Back up overdue tasks and put workers that lose to their backups on probation. */
        BACKUPS,
        /** Allocate on end-to-end cost ({@link OverheadModel}; only live runs feed it). */
        OVERHEAD
    }

    /**
     * ATA with {@code eta} estimated online ({@link EstimatedRelativeWidth}), queuing {@code extra}
     * tasks beyond B, with the given {@code adaptations}. Hedged plans keep no drift detector:
     * their completed durations are the fast ones (the slow are cancelled), which the detector
     * would read as a speed-up; ata-ert caches fits that a restart would leave stale.
     */
    private static LcbPolicy ataAuto(
            String name,
            Form form,
            int extra,
            Set<Adaptation> adaptations,
            PolicyContext context,
            long seed,
            WorkerStats stats) {
        ConfidenceWidth width = new EstimatedRelativeWidth(2.0, form, seed);
        LcbPolicy policy = new LcbPolicy(
                name,
                stats,
                width,
                context.batch(),
                context.batch() + extra,
                seed,
                adaptations.contains(Adaptation.DRIFT) ? new DriftDetector() : null,
                adaptations.contains(Adaptation.OVERHEAD) ? new OverheadModel() : null);
        return adaptations.contains(Adaptation.BACKUPS) ? policy.withBackups(0) : policy;
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
            return ConfidenceWidth.absolute(
                    convention.ataWidth(Double.NaN, maxMean),
                    String.format("constants=experiments alpha=2*max(mu)=%.6g", 2 * maxMean));
        }
        if (Double.isNaN(context.alpha())) {
            throw new IllegalArgumentException("ata with paper constants needs --alpha (or use ata-auto)");
        }
        return ConfidenceWidth.absolute(
                convention.ataWidth(context.alpha(), Double.NaN),
                String.format("constants=paper alpha=%.6g (%s)", context.alpha(), context.constantsSource()));
    }

    private static ConfidenceWidth empiricalWidth(PolicyContext context) {
        ConstantConvention convention = context.convention();
        if (convention == ConstantConvention.EXPERIMENTS) {
            return ConfidenceWidth.relative(convention.empiricalWidth(Double.NaN), "constants=experiments eta=2");
        }
        if (Double.isNaN(context.eta())) {
            throw new IllegalArgumentException("ata-empirical with paper constants needs --eta (or use ata-auto)");
        }
        return ConfidenceWidth.relative(
                convention.empiricalWidth(context.eta()),
                String.format("constants=paper eta=%.6g (%s)", context.eta(), context.constantsSource()));
    }
}
