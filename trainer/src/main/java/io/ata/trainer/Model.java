package io.ata.trainer;

import io.ata.schemas.TaskSpec;
import io.ata.schemas.TensorEncoding;
import java.util.Optional;

/**
 * What the trainer trains, as it needs it: the parameter vector's size, precision and start, the
 * task description every model version carries, the objective published with each version, and
 * how a version is scored on held-out data. Gradients come from the workers, not from here.
 *
 * <p>Two kinds: {@link ObjectiveModel}, a float64 test problem whose objective the trainer
 * computes itself (the paper's quadratic), and {@link NetworkModel}, a float32 neural network
 * trained on a data set, described to the agents by its {@link TaskSpec}.
 */
public interface Model {

    /** What is trained, in one line, e.g. {@code quadratic(d=100)} or {@code mlp:256,128,in=784,classes=10 on synthetic}. */
    String describe();

    /** The number of parameters; every gradient must have this length. */
    int dimension();

    /** The precision the parameters are kept and published in: FLOAT64_LE or FLOAT32_LE. */
    TensorEncoding precision();

    /** Model version 0, in {@link #precision()}. A fresh tensor on every call. */
    FlatTensor initialParameters();

    /**
     * The objective published with a model version (lower is better).
     *
     * @param parameters   the version's parameters
     * @param reportedLoss the mean loss the results of the round that made this version reported,
     *                     measured at the previous version (NaN for version 0)
     */
    double objective(FlatTensor parameters, double reportedLoss);

    /** The description of every task, carried by every model version; empty for the quadratic problem. */
    Optional<TaskSpec> taskSpec();

    /**
     * A scorer of model versions on the held-out test set. It is used on one background thread and
     * closed there; {@code threads} is the number of compute threads it may use.
     */
    TestScorer scorer(int threads);
}
