package io.ata.ml.net;

import io.ata.ml.data.Dataset;
import java.util.List;

/**
 * What network to train, as a value: its {@link NetworkKind kind} ({@code mlp}, {@code cnn}, or
 * one a {@link NetworkKindProvider} adds), the shape of one input sample, the hidden layer sizes,
 * the number of classes and the value type ({@code float32}). Pure Java: the parameter {@link
 * #layout()} and {@link #initialParameters(long) initial values} need no DJL. Everything that
 * differs between kinds (text form, checks, layers, parameter shapes, initial values, DJL block)
 * is the kind's: this class only holds the values and asks the kind.
 *
 * <p>The built-in kinds ({@link #architecture()} lists their layers):
 *
 * <ul>
 *   <li>{@code mlp}: the input is flattened to {@code in} features; each hidden size {@code h} is
 *       a fully connected layer of {@code h} units followed by ReLU; then a fully connected layer
 *       of {@code classes} units (the logits). Preset {@code mlp} = 784-256-128-10.
 *   <li>{@code cnn}: input {@code C x H x W}; each hidden size {@code c} is a 3x3 convolution
 *       (padding 1) with {@code c} filters followed by ReLU, and the first two of them are each
 *       followed by a 2x2 max-pool; then the result is flattened into a fully connected layer of
 *       {@code classes} units. Preset {@code cnn} = conv16-pool-conv32-pool-conv32-linear10 on
 *       1x28x28 (29,738 parameters).
 * </ul>
 *
 * <p>Textual form, e.g. for a command line ({@link #parse(String)}; {@link NetworkText} for the
 * details):
 *
 * <pre>
 *   KIND[:ITEM,ITEM,...]          KIND = mlp | cnn | a provider's
 *   ITEM = N                      a hidden layer: units (mlp) or filters (cnn), in order
 *        | in=D[xD...]            input shape: features for mlp (784), CxHxW for cnn (1x28x28)
 *        | classes=N              number of classes (output units)
 *        | dtype=float32          the only value type supported
 * </pre>
 *
 * Examples: {@code mlp} (the preset), {@code mlp:4096,2048} (two hidden layers, 11.6M parameters),
 * {@code cnn:8,16}, {@code mlp:64,in=20,classes=3}. Without hidden sizes the preset's are used;
 * without {@code in=}/{@code classes=} the defaults given to {@link #parse(String, List, int)} (the
 * data set's) are, else 1x28x28 and 10. {@link #toString()} gives the complete canonical form, which
 * parses back to an equal spec.
 */
public record NetworkSpec(NetworkKind kind, List<Integer> inputShape, List<Integer> hidden, int classes, String dtype) {

    public static final String FLOAT32 = "float32";

    /** Default sample shape: one 28x28 grey image (MNIST, Fashion-MNIST, the synthetic set). */
    public static final List<Integer> IMAGE_28 = List.of(1, 28, 28);

    public static final int DEFAULT_CLASSES = 10;

    /**
     * Checks the values common to all kinds, then the kind's own rules ({@link
     * NetworkKind#check}), then that the parameters fit one flat array.
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    public NetworkSpec(NetworkKind kind, List<Integer> inputShape, List<Integer> hidden, int classes, String dtype) {
        if (kind == null) {
            throw new IllegalArgumentException("network kind missing");
        }
        this.kind = kind;
        this.inputShape = List.copyOf(inputShape);
        this.hidden = List.copyOf(hidden);
        this.classes = classes;
        this.dtype = dtype;
        if (!FLOAT32.equals(dtype)) {
            throw new IllegalArgumentException("dtype " + dtype + " is not supported (only " + FLOAT32 + ")");
        }
        if (classes < 2) {
            throw new IllegalArgumentException("classes=" + classes + ": a classifier needs at least 2 classes");
        }
        for (int h : this.hidden) {
            if (h < 1) {
                throw new IllegalArgumentException("hidden layer size " + h + " is not positive");
            }
        }
        for (int d : this.inputShape) {
            if (d < 1) {
                throw new IllegalArgumentException(
                        "input dimension " + d + " in " + this.inputShape + " is not positive");
            }
        }
        kind.check(this);
        layout(); // fits one flat array
    }

    /** The preset {@code mlp}: 784-256-128-10 with ReLU (235,146 parameters). */
    public static NetworkSpec mlp() {
        return new NetworkSpec(
                MlpKind.INSTANCE, List.of(784), MlpKind.INSTANCE.presetHidden(), DEFAULT_CLASSES, FLOAT32);
    }

    /** The preset {@code cnn} for 1x28x28 images and 10 classes (29,738 parameters). */
    public static NetworkSpec cnn() {
        return new NetworkSpec(CnnKind.INSTANCE, IMAGE_28, CnnKind.INSTANCE.presetHidden(), DEFAULT_CLASSES, FLOAT32);
    }

    /** Parses the textual form with the defaults 1x28x28 input and 10 classes. */
    public static NetworkSpec parse(String text) {
        return parse(text, IMAGE_28, DEFAULT_CLASSES);
    }

    /**
     * Parses the textual form (see the class comment) with the kinds of {@link
     * NetworkKindRegistry#standard()}. Missing {@code in=} and {@code classes=} come from the
     * data: {@code sampleShape} (flattened for mlp) and {@code dataClasses}.
     *
     * @throws IllegalArgumentException with a message that quotes the text and says what is wrong
     */
    public static NetworkSpec parse(String text, List<Integer> sampleShape, int dataClasses) {
        return NetworkKindRegistry.standard().parse(text, sampleShape, dataClasses);
    }

    /** Number of input features of one sample (the product of {@link #inputShape()}). */
    public int inputSize() {
        return NetworkText.product(inputShape);
    }

    /**
     * Checks that {@code data} fits this network: samples of {@link #inputSize()} features and no
     * more classes than the network has.
     *
     * @throws IllegalArgumentException saying how the data does not fit
     */
    public void requireFits(Dataset data) {
        if (data.featureCount() != inputSize()) {
            throw new IllegalArgumentException("the network " + this + " takes " + inputSize() + " input features, but "
                    + data.name() + " has samples of " + data.featureShape());
        }
        if (data.classes() > classes) {
            throw new IllegalArgumentException("the network " + this + " has " + classes + " classes, but "
                    + data.name() + " has " + data.classes());
        }
    }

    /** The layers, in order, input to logits: the kind's {@link NetworkKind#layers}. */
    public List<Layer> architecture() {
        return kind.layers(this);
    }

    /**
     * The parameter tensors in order, named as DJL names them in the built network: the layer's
     * 1-based position in the sequence, two digits at least, then DJL's block name and the
     * parameter ({@code 01Linear_weight}, {@code 01Linear_bias}, {@code 04Conv2d_weight}, ...).
     * Shapes: dense {@code [units, in]} and {@code [units]}; convolution {@code [filters, C, 3,
     * 3]} and {@code [filters]}. The kind's {@link NetworkKind#parameters}.
     */
    public ParameterLayout layout() {
        return ParameterLayout.of(kind.parameters(this));
    }

    /** Total number of parameters (the length of the flat parameter array). */
    public int parameterCount() {
        return layout().totalSize();
    }

    /**
     * Deterministic initial parameters as one flat array in {@link #layout()} order: the kind's
     * {@link NetworkKind#initialParameters}, for the built-in kinds {@link
     * ParameterInit#uniformFanIn(ParameterLayout, long)}.
     */
    public float[] initialParameters(long seed) {
        ParameterLayout layout = layout();
        float[] values = kind.initialParameters(layout, seed);
        if (values.length != layout.totalSize()) {
            throw new IllegalStateException("the network kind '" + kind.name() + "' made " + values.length
                    + " initial values for " + layout.totalSize() + " parameters");
        }
        return values;
    }

    /**
     * The canonical textual form, e.g. {@code mlp:256,128,in=784,classes=10} ({@code dtype} is left
     * out: float32 is the only one): the kind's {@link NetworkKind#format}.
     */
    @Override
    public String toString() {
        return kind.format(this);
    }
}
