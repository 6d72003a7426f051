package io.ata.trainer;

import java.util.List;

/**
 * Optimizers of another jar: list the implementation in
 * {@code META-INF/services/io.ata.trainer.OptimizerProvider} and {@link TrainerRules#optimizers()}
 * finds them by name.
 */
public interface OptimizerProvider {
    /** The optimizers this provider defines. */
    List<OptimizerDefinition> optimizers();
}
