package io.ata.trainer;

import io.ata.extensions.ExtensionRegistry;

/**
 * The trainer's rules found by name ({@code ata trainer --aggregator NAME --optimizer NAME}): the
 * built-in ones ({@code BuiltInRules}), then those of every {@link AggregatorProvider} and {@link
 * OptimizerProvider} on the class path, as policies and network kinds are found. A new rule is one
 * class implementing {@link Aggregator} or {@link Optimizer} with its definition beside it.
 */
public final class TrainerRules {
    private TrainerRules() {}

    /** The aggregators: mean, trimmed-mean, then every provider's. */
    public static ExtensionRegistry<AggregatorDefinition> aggregators() {
        return Standard.AGGREGATORS;
    }

    /** The optimizers: sgd, adam, then every provider's. */
    public static ExtensionRegistry<OptimizerDefinition> optimizers() {
        return Standard.OPTIMIZERS;
    }

    /** Loaded once, on first use: the class path does not change while we run. */
    private static final class Standard {
        static final ExtensionRegistry<AggregatorDefinition> AGGREGATORS = ExtensionRegistry.load(
                "aggregator",
                new BuiltInRules(),
                AggregatorProvider.class,
                AggregatorProvider::aggregators,
                AggregatorDefinition::name);
        static final ExtensionRegistry<OptimizerDefinition> OPTIMIZERS = ExtensionRegistry.load(
                "optimizer",
                new BuiltInRules(),
                OptimizerProvider.class,
                OptimizerProvider::optimizers,
                OptimizerDefinition::name);
    }
}
