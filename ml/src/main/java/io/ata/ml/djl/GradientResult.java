package io.ata.ml.djl;

/**
 * The result of {@link GradientComputer#compute}: the mean gradient of the softmax cross-entropy
 * loss over the {@code samples} samples computed (flat, in the network's layout order), that mean
 * loss, and how many samples were asked for. When cancelled, {@code samples < requested} and the
 * values cover the samples done so far (no sample done: all-zero gradient and loss 0).
 */
public record GradientResult(float[] gradient, double loss, int samples, int requested) {

    /** True when the computation stopped before all requested samples. */
    public boolean cancelled() {
        return samples < requested;
    }
}
