package io.ata.trainer;

import io.ata.workloads.QuadraticProblem;
import java.util.Objects;

/**
 * The paper's quadratic problem as an {@link Objective}: starts at its {@code x0} and reports the
 * suboptimality {@code f(x) - f(x*)}, the quantity the paper plots, so a run on Kafka can be
 * compared with the simulator's curve.
 */
public record QuadraticObjective(QuadraticProblem problem) implements Objective {

    public QuadraticObjective {
        Objects.requireNonNull(problem, "problem");
    }

    /** The paper's instance: dimension 100. */
    public static QuadraticObjective paper() {
        return new QuadraticObjective(QuadraticProblem.paper());
    }

    @Override
    public int dimension() {
        return problem.dimension();
    }

    @Override
    public double[] initialParameters() {
        return problem.start();
    }

    /** The suboptimality {@code f(x) - f(x*)}. */
    @Override
    public double evaluate(double[] parameters) {
        return problem.suboptimality(parameters);
    }

    @Override
    public String describe() {
        return "quadratic(d=" + problem.dimension() + ")";
    }
}
