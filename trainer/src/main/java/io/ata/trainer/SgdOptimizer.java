package io.ata.trainer;

/**
 * Minibatch SGD with a constant step: {@code x <- x - step * g}, the update the paper analyses
 * (step {@code 1e-4} on its quadratic problem). Stateless.
 */
public final class SgdOptimizer implements Optimizer {
    private final double step;

    /**
     * @throws IllegalArgumentException unless {@code step} is positive and finite
     */
    public SgdOptimizer(double step) {
        if (!(step > 0) || Double.isInfinite(step)) {
            throw new IllegalArgumentException("step must be positive and finite, was " + step);
        }
        this.step = step;
    }

    public double step() {
        return step;
    }

    @Override
    public void step(double[] parameters, double[] meanGradient) {
        if (parameters.length != meanGradient.length) {
            throw new IllegalArgumentException(
                    "gradient has " + meanGradient.length + " values, the model " + parameters.length);
        }
        for (int i = 0; i < parameters.length; i++) {
            parameters[i] -= step * meanGradient[i];
        }
    }

    @Override
    public String toString() {
        return "SGD(step=" + step + ")";
    }
}
