package io.ata.trainer;

import java.util.Objects;
import java.util.function.Function;

/**
 * An optimizer as the registry knows it: its name, one line for the help, and how it is made from
 * the settings given (those not given take the rule's defaults).
 */
public record OptimizerDefinition(String name, String description, Function<OptimizerSettings, Optimizer> factory) {
    public OptimizerDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(factory, "factory");
    }
}
