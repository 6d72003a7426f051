package io.ata.workeragent;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.workloads.QuadraticProblem;
import io.ata.workloads.TaskSeed;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * The paper's quadratic problem as a real workload: a task is one stochastic gradient
 * {@code A x - b + sigma xi (1, ..., 1)} at the model's parameters {@code x}, exactly what the
 * simulator's workers compute ({@link QuadraticProblem#stochasticGradient}). Running it through
 * Kafka lets the streaming system be checked against the simulator on the same problem.
 *
 * <p>The noise {@code xi} comes from a stream seeded by the task id ({@link TaskSeed}), so a
 * re-run of a task gives the same gradient. Parameters may be in any {@code TensorEncoding}; the
 * gradient is always FLOAT64_LE. The reported loss is the exact objective {@code f(x)}. A task
 * takes microseconds, so it never stops part-way.
 */
public final class QuadraticWorkload implements Workload {

    private final QuadraticProblem problem;

    /** The paper's problem: d = 100, sigma = 1e-3. */
    public QuadraticWorkload() {
        this(QuadraticProblem.paper());
    }

    public QuadraticWorkload(QuadraticProblem problem) {
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    public QuadraticProblem problem() {
        return problem;
    }

    /**
     * @throws IllegalArgumentException if the model's parameters are not a vector of the
     *     problem's dimension
     */
    @Override
    public Optional<TaskOutput> compute(ModelVersion model, String taskId, long seed, BooleanSupplier stop) {
        double[] x = TensorCodec.decode(model.getParameters(), model.getEncoding());
        if (x.length != problem.dimension()) {
            throw new IllegalArgumentException("model " + model.getJob() + " version " + model.getVersion()
                    + " has " + x.length + " parameters, the quadratic problem has dimension "
                    + problem.dimension());
        }
        double[] gradient = new double[x.length];
        problem.stochasticGradient(x, new SplittableRandom(TaskSeed.of(seed, taskId)), gradient);
        return Optional.of(new TaskOutput(
                TensorCodec.encode(gradient, TensorEncoding.FLOAT64_LE),
                TensorEncoding.FLOAT64_LE,
                problem.value(x),
                1));
    }

    @Override
    public String describe() {
        return "quadratic(d=" + problem.dimension() + ")";
    }
}
