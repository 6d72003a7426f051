package io.ata.ml.net;

import io.ata.ml.data.Dataset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What network to train, as a value: its kind ({@code mlp} or {@code cnn}), the shape of one input
 * sample, the hidden layer sizes, the number of classes and the value type ({@code float32}). Pure
 * Java: the parameter {@link #layout()} and {@link #initialParameters(long) initial values} need no
 * DJL.
 *
 * <p>Architectures ({@link #architecture()} lists them layer by layer):
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
 * <p>Textual form, e.g. for a command line ({@link #parse(String)}):
 *
 * <pre>
 *   KIND[:ITEM,ITEM,...]          KIND = mlp | cnn
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
public record NetworkSpec(Kind kind, List<Integer> inputShape, List<Integer> hidden, int classes, String dtype) {

    /** The kinds of network. */
    public enum Kind {
        MLP,
        CNN;

        String text() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static final String FLOAT32 = "float32";

    /** Default sample shape: one 28x28 grey image (MNIST, Fashion-MNIST, the synthetic set). */
    public static final List<Integer> IMAGE_28 = List.of(1, 28, 28);

    public static final int DEFAULT_CLASSES = 10;

    private static final List<Integer> MLP_PRESET = List.of(256, 128);
    private static final List<Integer> CNN_PRESET = List.of(16, 32, 32);
    private static final int CNN_POOLED_LAYERS = 2;

    public NetworkSpec {
        if (kind == null) {
            throw new IllegalArgumentException("network kind missing (mlp or cnn)");
        }
        inputShape = List.copyOf(inputShape);
        hidden = List.copyOf(hidden);
        if (!FLOAT32.equals(dtype)) {
            throw new IllegalArgumentException("dtype " + dtype + " is not supported (only " + FLOAT32 + ")");
        }
        if (classes < 2) {
            throw new IllegalArgumentException("classes=" + classes + ": a classifier needs at least 2 classes");
        }
        if (hidden.isEmpty()) {
            throw new IllegalArgumentException(kind.text() + " needs at least one hidden layer size");
        }
        for (int h : hidden) {
            if (h < 1) {
                throw new IllegalArgumentException("hidden layer size " + h + " is not positive");
            }
        }
        for (int d : inputShape) {
            if (d < 1) {
                throw new IllegalArgumentException("input dimension " + d + " in " + inputShape + " is not positive");
            }
        }
        if (kind == Kind.MLP && inputShape.size() != 1) {
            throw new IllegalArgumentException("mlp takes a flat input (in=N), not " + shapeText(inputShape));
        }
        if (kind == Kind.CNN) {
            if (inputShape.size() != 3) {
                throw new IllegalArgumentException("cnn takes images (in=CxHxW), not " + shapeText(inputShape));
            }
            int pools = Math.min(CNN_POOLED_LAYERS, hidden.size());
            if ((inputShape.get(1) >> pools) < 1 || (inputShape.get(2) >> pools) < 1) {
                throw new IllegalArgumentException(
                        "cnn input " + shapeText(inputShape) + " is too small for " + pools + " 2x2 poolings");
            }
        }
        ParameterLayout.of(layoutOf(kind, inputShape, hidden, classes)); // fits one flat array
    }

    /** The preset {@code mlp}: 784-256-128-10 with ReLU (235,146 parameters). */
    public static NetworkSpec mlp() {
        return new NetworkSpec(Kind.MLP, List.of(784), MLP_PRESET, DEFAULT_CLASSES, FLOAT32);
    }

    /** The preset {@code cnn} for 1x28x28 images and 10 classes (29,738 parameters). */
    public static NetworkSpec cnn() {
        return new NetworkSpec(Kind.CNN, IMAGE_28, CNN_PRESET, DEFAULT_CLASSES, FLOAT32);
    }

    /** Parses the textual form with the defaults 1x28x28 input and 10 classes. */
    public static NetworkSpec parse(String text) {
        return parse(text, IMAGE_28, DEFAULT_CLASSES);
    }

    /**
     * Parses the textual form (see the class comment). Missing {@code in=} and {@code classes=}
     * come from the data: {@code sampleShape} (flattened for mlp) and {@code dataClasses}.
     *
     * @throws IllegalArgumentException with a message that quotes the text and says what is wrong
     */
    public static NetworkSpec parse(String text, List<Integer> sampleShape, int dataClasses) {
        try {
            return parseOrThrow(text.trim(), sampleShape, dataClasses);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("network '" + text + "': " + e.getMessage()
                    + " (expected mlp|cnn[:N,...][,in=DxD...][,classes=N], e.g. mlp:4096,2048)");
        }
    }

    private static NetworkSpec parseOrThrow(String text, List<Integer> sampleShape, int dataClasses) {
        int colon = text.indexOf(':');
        String kindText = colon < 0 ? text : text.substring(0, colon);
        Kind kind = switch (kindText.toLowerCase(Locale.ROOT)) {
            case "mlp" -> Kind.MLP;
            case "cnn" -> Kind.CNN;
            default -> throw new IllegalArgumentException("unknown kind '" + kindText + "'");
        };
        List<Integer> hidden = new ArrayList<>();
        List<Integer> in = null;
        Integer classes = null;
        String dtype = FLOAT32;
        if (colon >= 0) {
            String items = text.substring(colon + 1);
            if (items.isBlank()) {
                throw new IllegalArgumentException("nothing after ':'");
            }
            for (String raw : items.split(",", -1)) {
                String item = raw.trim();
                if (item.startsWith("in=")) {
                    in = parseShape(item.substring(3));
                } else if (item.startsWith("classes=")) {
                    classes = parsePositive(item.substring(8), "classes");
                } else if (item.startsWith("dtype=")) {
                    dtype = item.substring(6);
                } else {
                    hidden.add(parsePositive(item, "layer size"));
                }
            }
        }
        if (hidden.isEmpty()) {
            hidden = kind == Kind.MLP ? MLP_PRESET : CNN_PRESET;
        }
        if (in == null) {
            in = kind == Kind.MLP ? List.of(product(sampleShape)) : sampleShape;
        }
        return new NetworkSpec(kind, in, hidden, classes == null ? dataClasses : classes, dtype);
    }

    private static List<Integer> parseShape(String text) {
        List<Integer> dims = new ArrayList<>();
        for (String d : text.split("x", -1)) {
            dims.add(parsePositive(d, "input dimension"));
        }
        return dims;
    }

    private static int parsePositive(String text, String what) {
        int value;
        try {
            value = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a whole number");
        }
        if (value < 1) {
            throw new IllegalArgumentException(what + " " + value + " is not positive");
        }
        return value;
    }

    private static int product(List<Integer> shape) {
        long p = 1;
        for (int d : shape) {
            p *= d;
        }
        return Math.toIntExact(p);
    }

    /** Number of input features of one sample (the product of {@link #inputShape()}). */
    public int inputSize() {
        return product(inputShape);
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

    /** The layers, in order, input to logits. */
    public List<Layer> architecture() {
        return architectureOf(kind, hidden, classes);
    }

    private static List<Layer> architectureOf(Kind kind, List<Integer> hidden, int classes) {
        List<Layer> layers = new ArrayList<>();
        for (int i = 0; i < hidden.size(); i++) {
            layers.add(kind == Kind.MLP ? new Layer.Dense(hidden.get(i)) : new Layer.Conv3x3(hidden.get(i)));
            layers.add(new Layer.Relu());
            if (kind == Kind.CNN && i < CNN_POOLED_LAYERS) {
                layers.add(new Layer.MaxPool2x2());
            }
        }
        if (kind == Kind.CNN) {
            layers.add(new Layer.Flatten());
        }
        layers.add(new Layer.Dense(classes));
        return layers;
    }

    /**
     * The parameter tensors in order, named as DJL names them in the built network: the layer's
     * 1-based position in the sequence, two digits at least, then DJL's block name and the
     * parameter ({@code 01Linear_weight}, {@code 01Linear_bias}, {@code 04Conv2d_weight}, ...).
     * Shapes: dense {@code [units, in]} and {@code [units]}; convolution {@code [filters, C, 3,
     * 3]} and {@code [filters]}.
     */
    public ParameterLayout layout() {
        return ParameterLayout.of(layoutOf(kind, inputShape, hidden, classes));
    }

    private static List<ParameterShape> layoutOf(
            Kind kind, List<Integer> inputShape, List<Integer> hidden, int classes) {
        List<Integer> input = kind == Kind.MLP ? List.of(product(inputShape)) : inputShape;
        return Layer.parametersOf(architectureOf(kind, hidden, classes), input);
    }

    /** Total number of parameters (the length of the flat parameter array). */
    public int parameterCount() {
        return layout().totalSize();
    }

    /**
     * Deterministic initial parameters as one flat array in {@link #layout()} order; see {@link
     * ParameterInit#uniformFanIn(ParameterLayout, long)} for the rule.
     */
    public float[] initialParameters(long seed) {
        return ParameterInit.uniformFanIn(layout(), seed);
    }

    /**
     * The canonical textual form, e.g. {@code mlp:256,128,in=784,classes=10} ({@code dtype} is left
     * out: float32 is the only one).
     */
    @Override
    public String toString() {
        return kind.text() + ":" + hidden.stream().map(String::valueOf).collect(Collectors.joining(",")) + ",in="
                + shapeText(inputShape) + ",classes=" + classes;
    }

    private static String shapeText(List<Integer> shape) {
        return shape.stream().map(String::valueOf).collect(Collectors.joining("x"));
    }
}
