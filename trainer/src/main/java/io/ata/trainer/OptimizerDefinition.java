package io.ata.trainer;

import java.util.Objects;
import java.util.function.Function;

/**
 * An optimizer as {@link TrainerRules} knows it: its name, one line for the help, and how it is made from
 * the settings given (those not given take the rule's defaults).
 */
public record OptimizerDefinition(String name, String description, Function<OptimizerSettings, Optimizer> factory) {
    public OptimizerDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(factory, "factory");
    }

    /**
     * Makes the rule with {@code settings}.
     *
     * @throws IllegalArgumentException if the rule refuses the settings
     */
    public Optimizer create(OptimizerSettings settings) {
        return factory.apply(settings);
    }
}
