package io.ata.ml.net;

import java.util.SplittableRandom;

/**
 * Deterministic initial parameters in pure Java, so the trainer can create model version 0 without
 * DJL and anyone can recompute it.
 *
 * <p>The rule ({@link #uniformFanIn(ParameterLayout, long)}): one {@code new
 * SplittableRandom(seed)} is drawn from tensor after tensor in layout order, value after value in
 * row-major order; each value is {@code (float) ((2 * u - 1) * bound)} with {@code u =
 * nextDouble()} and {@code bound = 1 / sqrt(fanIn)}. A tensor of two or more dimensions is a
 * weight, its fan-in the product of all its dimensions but the first ({@code in} for dense, {@code
 * C * 3 * 3} for convolutions); a one-dimensional tensor is a bias and uses the fan-in of the
 * weight before it. This is PyTorch's default initialisation of {@code Linear} and {@code Conv2d}
 * (uniform on [-1/sqrt(fanIn), 1/sqrt(fanIn)] for both).
 */
public final class ParameterInit {

    private ParameterInit() {}

    /** The initial parameters of {@code layout} under {@code seed}, as one flat array. */
    public static float[] uniformFanIn(ParameterLayout layout, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] values = new float[layout.totalSize()];
        long fanIn = 1;
        int index = 0;
        for (ParameterShape tensor : layout.parameters()) {
            if (tensor.shape().size() >= 2) {
                fanIn = tensor.fanIn();
            }
            double bound = 1.0 / Math.sqrt(fanIn);
            for (long j = 0; j < tensor.size(); j++) {
                values[index++] = (float) ((2 * random.nextDouble() - 1) * bound);
            }
        }
        return values;
    }
}
