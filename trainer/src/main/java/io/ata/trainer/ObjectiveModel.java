package io.ata.trainer;

import io.ata.schemas.TaskSpec;
import io.ata.schemas.TensorEncoding;
import java.util.Objects;
import java.util.Optional;

/**
 * A float64 test problem as a {@link Model}: parameters kept and published as FLOAT64_LE, no task
 * description (the agents know the problem), and an objective the trainer computes from the
 * parameters, the suboptimality for the paper's quadratic. Scoring a version "on the test set"
 * is computing that objective again: loss = objective, accuracy NaN, no samples.
 */
public record ObjectiveModel(Objective objective) implements Model {

    public ObjectiveModel {
        Objects.requireNonNull(objective, "objective");
    }

    @Override
    public String describe() {
        return objective.describe();
    }

    @Override
    public int dimension() {
        return objective.dimension();
    }

    @Override
    public TensorEncoding precision() {
        return TensorEncoding.FLOAT64_LE;
    }

    @Override
    public FlatTensor initialParameters() {
        return FlatTensor.of(objective.initialParameters());
    }

    /** {@link Objective#evaluate} of the parameters; the reported loss is not needed. */
    @Override
    public double objective(FlatTensor parameters, double reportedLoss) {
        return objective.evaluate(parameters.toDoubles());
    }

    @Override
    public Optional<TaskSpec> taskSpec() {
        return Optional.empty();
    }

    @Override
    public TestScorer scorer(int threads) {
        return new TestScorer() {
            @Override
            public TestScore score(FlatTensor parameters) {
                return new TestScore(objective.evaluate(parameters.toDoubles()), Double.NaN, 0, "");
            }

            @Override
            public void close() {
                // nothing held
            }
        };
    }

    @Override
    public String toString() {
        return describe();
    }
}
