package io.ata.trainer;

import io.ata.workloads.QuadraticProblem;
import java.util.List;

/**
 * Minibatch SGD, with optional momentum and weight decay: PyTorch's {@code torch.optim.SGD}
 * (no dampening, no Nesterov). With gradient {@code g}, learning rate {@code lr}, momentum
 * {@code mu} and weight decay {@code wd}, for every parameter {@code x}:
 *
 * <pre>
 *   g' = g + wd * x                 weight decay as an L2 term added to the gradient
 *   v  = mu * v + g'                (only if mu &gt; 0; v starts at 0, so the first v is g')
 *   x  = x - lr * (mu &gt; 0 ? v : g')
 * </pre>
 *
 * With {@code mu = 0} and {@code wd = 0} this is the paper's update {@code x - lr * g} (step
 * {@code 1e-4} on its quadratic problem) and there is no state. With momentum the state is one
 * vector, {@code velocity}.
 */
public record SgdOptimizer(double learningRate, double momentum, double weightDecay) implements Optimizer {
    /** The learning rate on the quadratic problem unless set: the paper's step. */
    public static final double DEFAULT_LEARNING_RATE_QUADRATIC = QuadraticProblem.DEFAULT_STEP;
    /** The learning rate on a network unless set. */
    public static final double DEFAULT_LEARNING_RATE_NETWORK = 0.01;

    /** Its entry in the {@link TrainerRules#optimizers()}: momentum and weight decay, no Adam settings. */
    public static final OptimizerDefinition DEFINITION = new OptimizerDefinition(
            "sgd", "stochastic gradient descent, with momentum and weight decay (the default)", s -> {
                if (s.beta1() != null || s.beta2() != null || s.epsilon() != null) {
                    throw new IllegalArgumentException("beta1, beta2 and epsilon apply to the adam optimizer only");
                }
                double defaultRate = s.network() ? DEFAULT_LEARNING_RATE_NETWORK : DEFAULT_LEARNING_RATE_QUADRATIC;
                return new SgdOptimizer(
                        OptimizerSettings.or(s.learningRate(), defaultRate),
                        OptimizerSettings.or(s.momentum(), 0),
                        OptimizerSettings.or(s.weightDecay(), 0));
            });

    /** Plain SGD: {@code x - lr * g}. */
    public SgdOptimizer(double learningRate) {
        this(learningRate, 0, 0);
    }

    /**
     * @throws IllegalArgumentException unless {@code learningRate} is positive and finite,
     *     {@code 0 <= momentum < 1} and {@code weightDecay} is finite and {@code >= 0}
     */
    public SgdOptimizer {
        HyperParameters.requirePositive(learningRate, "learning rate");
        HyperParameters.requireFraction(momentum, "momentum");
        HyperParameters.requireWeightDecay(weightDecay);
    }

    /** {@code sgd(lr=...,momentum=...,wd=...)}. */
    @Override
    public String describe() {
        return HyperParameters.of("sgd")
                .with("lr", learningRate)
                .with("momentum", momentum)
                .with("wd", weightDecay)
                .text();
    }

    /** {@code [velocity]} with momentum, none without. */
    @Override
    public List<String> stateVectors() {
        return momentum > 0 ? List.of("velocity") : List.of();
    }

    @Override
    public void step(FlatTensor parameters, double[] gradient, OptimizerMemory memory) {
        Optimizer.requireSameLength(parameters, gradient, memory);
        FlatTensor velocity = momentum > 0 ? memory.vector(0) : null;
        for (int i = 0; i < gradient.length; i++) {
            double x = parameters.get(i);
            double g = weightDecay == 0 ? gradient[i] : gradient[i] + weightDecay * x;
            if (velocity != null) {
                velocity.set(i, momentum * velocity.get(i) + g);
                g = velocity.get(i); // the stored value: what a restarted trainer would read
            }
            parameters.set(i, x - learningRate * g);
        }
        memory.advance();
    }

    @Override
    public String toString() {
        return describe();
    }
}
