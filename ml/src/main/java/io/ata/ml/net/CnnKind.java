package io.ata.ml.net;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code cnn}: input {@code C x H x W}; each hidden size {@code c} is a 3x3 convolution (padding
 * 1) with {@code c} filters followed by ReLU, and the first two of them are each followed by a 2x2
 * max-pool; then the result is flattened into a fully connected layer of {@code classes} units.
 * Preset {@code cnn} = conv16-pool-conv32-pool-conv32-linear10 on 1x28x28 (29,738 parameters).
 * Text: {@code cnn[:N,...][,in=CxHxW][,classes=N]}, e.g. {@code cnn:8,16,in=3x32x32}.
 */
final class CnnKind extends NamedNetworkKind {
    static final CnnKind INSTANCE = new CnnKind();

    private static final int POOLED_LAYERS = 2;

    private CnnKind() {
        super(
                "cnn",
                "3x3 convolutions with ReLU, the first two max-pooled, then one dense layer (preset 16,32,32)",
                List.of(16, 32, 32));
    }

    @Override
    public void check(NetworkSpec spec) {
        if (spec.hidden().isEmpty()) {
            throw new IllegalArgumentException("cnn needs at least one hidden layer size");
        }
        List<Integer> in = spec.inputShape();
        if (in.size() != 3) {
            throw new IllegalArgumentException("cnn takes images (in=CxHxW), not " + NetworkText.shape(in));
        }
        int pools = Math.min(POOLED_LAYERS, spec.hidden().size());
        if ((in.get(1) >> pools) < 1 || (in.get(2) >> pools) < 1) {
            throw new IllegalArgumentException(
                    "cnn input " + NetworkText.shape(in) + " is too small for " + pools + " 2x2 poolings");
        }
    }

    /** Conv, ReLU (and a pool after the first two) for each hidden size; Flatten; Dense to the classes. */
    @Override
    public List<Layer> layers(NetworkSpec spec) {
        List<Layer> layers = new ArrayList<>();
        for (int i = 0; i < spec.hidden().size(); i++) {
            layers.add(new Layer.Conv3x3(spec.hidden().get(i)));
            layers.add(new Layer.Relu());
            if (i < POOLED_LAYERS) {
                layers.add(new Layer.MaxPool2x2());
            }
        }
        layers.add(new Layer.Flatten());
        layers.add(new Layer.Dense(spec.classes()));
        return layers;
    }
}
