package io.ata.trainer;

import java.util.List;

/**
 * Aggregators of another jar: list the implementation in
 * {@code META-INF/services/io.ata.trainer.AggregatorProvider} and {@link TrainerRules#aggregators()}
 * finds them by name.
 */
public interface AggregatorProvider {
    /** The aggregators this provider defines. */
    List<AggregatorDefinition> aggregators();
}
