package io.ata.ml.net;

import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code test-tanh}: an mlp with tanh in place of ReLU and initial values of its own (Glorot
 * uniform weights, zero biases), as a third party would write a kind: one class, with a layer of
 * its own ({@link Tanh}), using the common text form. Text: {@code test-tanh[:N,...][,in=N]
 * [,classes=N]}; preset one hidden layer of 8.
 */
public final class TanhKind implements NetworkKind {
    public static final TanhKind INSTANCE = new TanhKind();

    private TanhKind() {}

    @Override
    public String name() {
        return "test-tanh";
    }

    @Override
    public String description() {
        return "fully connected layers with tanh (a kind from a provider)";
    }

    @Override
    public List<Integer> presetHidden() {
        return List.of(8);
    }

    @Override
    public List<Integer> inputShapeOf(List<Integer> sampleShape) {
        return List.of(NetworkText.product(sampleShape));
    }

    @Override
    public void check(NetworkSpec spec) {
        if (spec.inputShape().size() != 1) {
            throw new IllegalArgumentException(
                    "test-tanh takes a flat input (in=N), not " + NetworkText.shape(spec.inputShape()));
        }
    }

    @Override
    public List<Layer> layers(NetworkSpec spec) {
        List<Layer> layers = new ArrayList<>();
        for (int units : spec.hidden()) {
            layers.add(new Layer.Dense(units));
            layers.add(new Tanh());
        }
        layers.add(new Layer.Dense(spec.classes()));
        return layers;
    }

    /**
     * Glorot uniform: a weight {@code [out, in]} on [-b, b] with {@code b = sqrt(6 / (in + out))},
     * value after value from one {@code SplittableRandom(seed)}; biases zero.
     */
    @Override
    public float[] initialParameters(ParameterLayout layout, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] values = new float[layout.totalSize()];
        for (int t = 0; t < layout.parameters().size(); t++) {
            ParameterShape tensor = layout.parameters().get(t);
            if (tensor.shape().size() < 2) {
                continue;
            }
            double bound =
                    Math.sqrt(6.0 / (tensor.shape().get(0) + tensor.shape().get(1)));
            for (int i = 0; i < tensor.size(); i++) {
                values[layout.offset(t) + i] = (float) ((2 * random.nextDouble() - 1) * bound);
            }
        }
        return values;
    }

    @Override
    public String toString() {
        return name();
    }

    /** {@code tanh(x)}, no parameters: a layer the project does not have. */
    public record Tanh() implements Layer {
        @Override
        public List<Integer> outputShape(List<Integer> input) {
            return input;
        }

        @Override
        public Block block() {
            return Activation.tanhBlock();
        }
    }
}
