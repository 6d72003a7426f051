package io.ata.ml.net;

import java.util.List;

/**
 * {@code mlp}: the input is flattened to {@code in} features; each hidden size {@code h} is a
 * fully connected layer of {@code h} units followed by ReLU; then a fully connected layer of
 * {@code classes} units (the logits). Preset {@code mlp} = 784-256-128-10 (235,146 parameters).
 * Text: {@code mlp[:N,...][,in=N][,classes=N]}, e.g. {@code mlp:4096,2048}.
 */
final class MlpKind extends NamedNetworkKind {
    static final MlpKind INSTANCE = new MlpKind();

    private MlpKind() {
        super(
                "mlp",
                "fully connected layers with ReLU on the flattened input (preset 784-256-128-10)",
                List.of(256, 128));
    }

    /** Flattened: {@code 1x28x28} samples give {@code in=784}. */
    @Override
    public List<Integer> inputShapeOf(List<Integer> sampleShape) {
        return List.of(NetworkText.product(sampleShape));
    }

    @Override
    public void check(NetworkSpec spec) {
        if (spec.hidden().isEmpty()) {
            throw new IllegalArgumentException("mlp needs at least one hidden layer size");
        }
        NetworkText.requireFlatInput(spec);
    }

    /** Dense, ReLU for each hidden size, then Dense to the classes. */
    @Override
    public List<Layer> layers(NetworkSpec spec) {
        return Layer.denseStack(spec.hidden(), spec.classes(), Layer.Relu::new);
    }
}
