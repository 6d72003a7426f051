package io.ata.trainer;

import java.util.List;

/**
 * Turns the aggregated gradient of a closed round into the next model version: an update rule
 * and its hyper-parameters. An optimizer object holds no state of its own; what it remembers
 * between steps (momentum, Adam's moments, the step count) is an {@link OptimizerMemory} that the
 * trainer keeps next to the parameters and publishes with every model version, so a restarted
 * trainer continues exactly.
 *
 * <p>Arithmetic: every value is computed in double from the stored values (widened exactly) and
 * rounded to the model's precision when stored ({@link FlatTensor#set}): parameters and state
 * vectors of a float32 model are float32, as PyTorch keeps them. Deterministic on every JVM.
 */
public interface Optimizer {

    /**
     * The optimizer's name and hyper-parameters in one canonical text, e.g.
     * {@code adam(lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,wd=0)}; published with its state, and
     * a restarted trainer refuses a state written under another text.
     */
    String describe();

    /**
     * The names of the state vectors (each as long as the model), in the order they are published
     * one after another in {@code OptimizerState.state}; empty for a stateless rule (plain SGD),
     * which then publishes no state.
     */
    List<String> stateVectors();

    /**
     * One step: updates {@code parameters} and {@code memory} in place with {@code gradient}, and
     * counts the step ({@link OptimizerMemory#step()} is the number of steps taken, this one
     * included, when it returns).
     *
     * @throws IllegalArgumentException if the lengths differ
     */
    void step(FlatTensor parameters, double[] gradient, OptimizerMemory memory);

    /** Whether there is state to publish and restore. */
    default boolean hasState() {
        return !stateVectors().isEmpty();
    }

    /** Checks the lengths of one step's arguments. */
    static void requireSameLength(FlatTensor parameters, double[] gradient, OptimizerMemory memory) {
        if (parameters.length() != gradient.length) {
            throw new IllegalArgumentException(
                    "gradient has " + gradient.length + " values, the model " + parameters.length());
        }
        if (memory.dimension() != parameters.length()) {
            throw new IllegalArgumentException("optimizer state has vectors of " + memory.dimension()
                    + " values, the model " + parameters.length());
        }
    }
}
