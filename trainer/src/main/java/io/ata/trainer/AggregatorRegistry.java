package io.ata.trainer;

import java.util.List;

/**
 * The aggregators known by name ({@code ata trainer --aggregator NAME}): the built-in ones, then
 * those of every {@link AggregatorProvider} on the class path (listed in
 * {@code META-INF/services/io.ata.trainer.AggregatorProvider}); a name may be defined once only.
 * A new rule is one class implementing {@link Aggregator} with its {@link AggregatorDefinition}.
 */
public final class AggregatorRegistry {
    private final NamedDefinitions<AggregatorDefinition> definitions;

    private AggregatorRegistry(NamedDefinitions<AggregatorDefinition> definitions) {
        this.definitions = definitions;
    }

    /** The built-in aggregators, then every provider's. */
    public static AggregatorRegistry standard() {
        return Standard.REGISTRY;
    }

    /** Exactly {@code definitions}: for tests, and for a trainer embedded with rules of its own. */
    public static AggregatorRegistry of(List<AggregatorDefinition> definitions) {
        return new AggregatorRegistry(NamedDefinitions.of("aggregator", definitions, AggregatorDefinition::name));
    }

    /** Loaded once, on first use: the class path does not change while we run. */
    private static final class Standard {
        static final AggregatorRegistry REGISTRY = new AggregatorRegistry(NamedDefinitions.load(
                "aggregator",
                List.of(MeanAggregator.DEFINITION, TrimmedMeanAggregator.DEFINITION),
                AggregatorProvider.class,
                AggregatorProvider::aggregators,
                AggregatorDefinition::name));
    }

    /**
     * The aggregator named {@code name} with {@code settings}.
     *
     * @throws IllegalArgumentException if the name is unknown (the message lists the known ones) or
     *     the rule refuses the settings
     */
    public Aggregator create(String name, AggregatorSettings settings) {
        return definitions.get(name).factory().apply(settings);
    }

    /** Every aggregator's name, built-in first. */
    public List<String> names() {
        return definitions.names();
    }
}
