package io.ata.trainer;

import java.util.List;

/** The aggregators and optimizers that come with the trainer: the first entries of {@link TrainerRules}. */
final class BuiltInRules implements AggregatorProvider, OptimizerProvider {
    @Override
    public List<AggregatorDefinition> aggregators() {
        return List.of(MeanAggregator.DEFINITION, TrimmedMeanAggregator.DEFINITION);
    }

    @Override
    public List<OptimizerDefinition> optimizers() {
        return List.of(SgdOptimizer.DEFINITION, AdamOptimizer.DEFINITION);
    }
}
