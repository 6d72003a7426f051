package io.ata.trainer;

import java.util.Objects;
import java.util.function.Function;

/**
 * An aggregator as the registry knows it: its name, one line for the help, and how it is made
 * from the trainer's settings.
 */
public record AggregatorDefinition(String name, String description, Function<AggregatorSettings, Aggregator> factory) {
    public AggregatorDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(factory, "factory");
    }
}
