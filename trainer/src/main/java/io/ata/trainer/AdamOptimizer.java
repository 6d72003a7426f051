package io.ata.trainer;

import java.util.List;

/**
 * Adam with decoupled weight decay (AdamW, Loshchilov and Hutter), as PyTorch's
 * {@code torch.optim.AdamW} computes it. At step {@code t} (1 for the first), with gradient
 * {@code g}, for every parameter {@code x}:
 *
 * <pre>
 *   m  = beta1 * m + (1 - beta1) * g
 *   v  = beta2 * v + (1 - beta2) * g * g
 *   x  = x * (1 - lr * wd)  -  (lr / (1 - beta1^t)) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
 * </pre>
 *
 * The weight decay shrinks the parameters directly instead of entering the gradient, so it is not
 * rescaled by the moments ({@code wd = 0}: plain Adam, Kingma and Ba). The state is two vectors,
 * {@code m} then {@code v}, and the step count {@code t}. Defaults: {@code beta1 = 0.9},
 * {@code beta2 = 0.999}, {@code eps = 1e-8}, {@code wd = 0}.
 */
public record AdamOptimizer(double learningRate, double beta1, double beta2, double epsilon, double weightDecay)
        implements Optimizer {
    public static final double DEFAULT_BETA1 = 0.9;
    public static final double DEFAULT_BETA2 = 0.999;
    public static final double DEFAULT_EPSILON = 1e-8;
    /** The learning rate unless set. */
    public static final double DEFAULT_LEARNING_RATE = 1e-3;

    /** Its entry in the {@link TrainerRules#optimizers()}: betas, epsilon and weight decay, no momentum. */
    public static final OptimizerDefinition DEFINITION =
            new OptimizerDefinition("adam", "Adam with decoupled weight decay (AdamW)", s -> {
                if (s.momentum() != null) {
                    throw new IllegalArgumentException("momentum applies to the sgd optimizer only (adam has beta1)");
                }
                return new AdamOptimizer(
                        OptimizerSettings.or(s.learningRate(), DEFAULT_LEARNING_RATE),
                        OptimizerSettings.or(s.beta1(), DEFAULT_BETA1),
                        OptimizerSettings.or(s.beta2(), DEFAULT_BETA2),
                        OptimizerSettings.or(s.epsilon(), DEFAULT_EPSILON),
                        OptimizerSettings.or(s.weightDecay(), 0));
            });

    /** Adam with the default betas and epsilon, no weight decay. */
    public AdamOptimizer(double learningRate) {
        this(learningRate, DEFAULT_BETA1, DEFAULT_BETA2, DEFAULT_EPSILON, 0);
    }

    /**
     * @throws IllegalArgumentException unless {@code learningRate} and {@code epsilon} are positive
     *     and finite, both betas are in {@code [0, 1)} and {@code weightDecay} is finite and
     *     {@code >= 0}
     */
    public AdamOptimizer {
        HyperParameters.requirePositive(learningRate, "learning rate");
        HyperParameters.requireFraction(beta1, "beta1");
        HyperParameters.requireFraction(beta2, "beta2");
        HyperParameters.requirePositive(epsilon, "epsilon");
        HyperParameters.requireWeightDecay(weightDecay);
    }

    /** {@code adam(lr=...,beta1=...,beta2=...,eps=...,wd=...)}. */
    @Override
    public String describe() {
        return HyperParameters.of("adam")
                .with("lr", learningRate)
                .with("beta1", beta1)
                .with("beta2", beta2)
                .with("eps", epsilon)
                .with("wd", weightDecay)
                .text();
    }

    /** {@code [m, v]}: the first and second moments. */
    @Override
    public List<String> stateVectors() {
        return List.of("m", "v");
    }

    @Override
    public void step(FlatTensor parameters, double[] gradient, OptimizerMemory memory) {
        Optimizer.requireSameLength(parameters, gradient, memory);
        long t = memory.advance();
        double stepSize = learningRate / (1 - Math.pow(beta1, t));
        double secondCorrection = Math.sqrt(1 - Math.pow(beta2, t));
        double shrink = 1 - learningRate * weightDecay;
        FlatTensor m = memory.vector(0);
        FlatTensor v = memory.vector(1);
        for (int i = 0; i < gradient.length; i++) {
            double g = gradient[i];
            m.set(i, beta1 * m.get(i) + (1 - beta1) * g);
            v.set(i, beta2 * v.get(i) + (1 - beta2) * g * g);
            // the stored (rounded) moments: what a restarted trainer would read
            double denominator = Math.sqrt(v.get(i)) / secondCorrection + epsilon;
            parameters.set(i, parameters.get(i) * shrink - stepSize * m.get(i) / denominator);
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
