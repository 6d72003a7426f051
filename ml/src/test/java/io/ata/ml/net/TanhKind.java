package io.ata.ml.net;

import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code test-tanh}: an mlp with tanh in place of ReLU and initial values of its own (Glorot
 * uniform weights, zero biases), as a third party would write a kind: one class, with a layer of
 * its own ({@link Tanh}), using the common text form. Text: {@code test-tanh[:N,...][,in=N]
 * [,classes=N]}; preset one hidden layer of 8.
 */
public final class TanhKind extends NamedNetworkKind {
    public static final TanhKind INSTANCE = new TanhKind();

    private TanhKind() {
        super("test-tanh", "fully connected layers with tanh (a kind from a provider)", List.of(8));
    }

    @Override
    public List<Integer> inputShapeOf(List<Integer> sampleShape) {
        return List.of(NetworkText.product(sampleShape));
    }

    @Override
    public void check(NetworkSpec spec) {
        NetworkText.requireFlatInput(spec);
    }

    @Override
    public List<Layer> layers(NetworkSpec spec) {
        return Layer.denseStack(spec.hidden(), spec.classes(), Tanh::new);
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

    /** {@code tanh(x)}, no parameters: a layer the project does not have. */
    public record Tanh() implements Layer.ElementWise {
        @Override
        public Block block() {
            return Activation.tanhBlock();
        }
    }
}
