package io.ata.trainer;

/**
 * A float64 test problem whose objective the trainer computes itself: how many parameters, where
 * training starts, and a number that says how good a model version is (published with every
 * version, so progress can be followed on the {@code model} topic). Trained as an
 * {@link ObjectiveModel}; gradients come from the workers, not from here.
 */
public interface Objective {

    /** The number of parameters; every gradient must have this length. */
    int dimension();

    /** Model version 0. A fresh array on every call. */
    double[] initialParameters();

    /** The training objective at {@code parameters} (lower is better). */
    double evaluate(double[] parameters);

    /** The problem in one line, for logs. */
    default String describe() {
        return "objective(d=" + dimension() + ")";
    }
}
