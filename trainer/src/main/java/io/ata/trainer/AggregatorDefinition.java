package io.ata.trainer;

import java.util.Objects;
import java.util.function.Function;

/**
 * An aggregator as {@link TrainerRules} knows it: its name, one line for the help, and how it is made
 * from the trainer's settings.
 */
public record AggregatorDefinition(String name, String description, Function<AggregatorSettings, Aggregator> factory) {
    public AggregatorDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(factory, "factory");
    }

    /**
     * Makes the rule with {@code settings}.
     *
     * @throws IllegalArgumentException if the rule refuses the settings
     */
    public Aggregator create(AggregatorSettings settings) {
        return factory.apply(settings);
    }
}
