package io.ata.trainer;

import java.util.List;

/**
 * The optimizers known by name ({@code ata trainer --optimizer NAME}): the built-in ones, then
 * those of every {@link OptimizerProvider} on the class path (listed in
 * {@code META-INF/services/io.ata.trainer.OptimizerProvider}); a name may be defined once only.
 * A new update rule is one class implementing {@link Optimizer} with its {@link OptimizerDefinition}.
 */
public final class OptimizerRegistry {
    private final NamedDefinitions<OptimizerDefinition> definitions;

    private OptimizerRegistry(NamedDefinitions<OptimizerDefinition> definitions) {
        this.definitions = definitions;
    }

    /** The built-in optimizers, then every provider's. */
    public static OptimizerRegistry standard() {
        return Standard.REGISTRY;
    }

    /** Exactly {@code definitions}: for tests, and for a trainer embedded with rules of its own. */
    public static OptimizerRegistry of(List<OptimizerDefinition> definitions) {
        return new OptimizerRegistry(NamedDefinitions.of("optimizer", definitions, OptimizerDefinition::name));
    }

    /** Loaded once, on first use: the class path does not change while we run. */
    private static final class Standard {
        static final OptimizerRegistry REGISTRY = new OptimizerRegistry(NamedDefinitions.load(
                "optimizer",
                List.of(SgdOptimizer.DEFINITION, AdamOptimizer.DEFINITION),
                OptimizerProvider.class,
                OptimizerProvider::optimizers,
                OptimizerDefinition::name));
    }

    /**
     * The optimizer named {@code name} with {@code settings}.
     *
     * @throws IllegalArgumentException if the name is unknown (the message lists the known ones) or
     *     the rule refuses the settings (a setting of another rule, a value out of range)
     */
    public Optimizer create(String name, OptimizerSettings settings) {
        return definitions.get(name).factory().apply(settings);
    }

    /** Every optimizer's name, built-in first. */
    public List<String> names() {
        return definitions.names();
    }
}
