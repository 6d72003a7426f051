package io.ata.ml.net;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code mlp}: the input is flattened to {@code in} features; each hidden size {@code h} is a
 * fully connected layer of {@code h} units followed by ReLU; then a fully connected layer of
 * {@code classes} units (the logits). Preset {@code mlp} = 784-256-128-10 (235,146 parameters).
 * Text: {@code mlp[:N,...][,in=N][,classes=N]}, e.g. {@code mlp:4096,2048}.
 */
final class MlpKind implements NetworkKind {
    static final MlpKind INSTANCE = new MlpKind();

    private static final List<Integer> PRESET = List.of(256, 128);

    private MlpKind() {}

    @Override
    public String name() {
        return "mlp";
    }

    @Override
    public String description() {
        return "fully connected layers with ReLU on the flattened input (preset 784-256-128-10)";
    }

    @Override
    public List<Integer> presetHidden() {
        return PRESET;
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
        if (spec.inputShape().size() != 1) {
            throw new IllegalArgumentException(
                    "mlp takes a flat input (in=N), not " + NetworkText.shape(spec.inputShape()));
        }
    }

    /** Dense, ReLU for each hidden size, then Dense to the classes. */
    @Override
    public List<Layer> layers(NetworkSpec spec) {
        List<Layer> layers = new ArrayList<>();
        for (int units : spec.hidden()) {
            layers.add(new Layer.Dense(units));
            layers.add(new Layer.Relu());
        }
        layers.add(new Layer.Dense(spec.classes()));
        return layers;
    }

    @Override
    public String toString() {
        return name();
    }
}
