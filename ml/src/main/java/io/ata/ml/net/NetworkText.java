package io.ata.ml.net;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The common text form of a network, which every built-in kind uses ({@link NetworkKind#parse}
 * and {@link NetworkKind#format} by default):
 *
 * <pre>
 *   KIND[:ITEM,ITEM,...]
 *   ITEM = N                      a hidden layer size, in order (units, filters, ...: the kind's)
 *        | in=D[xD...]            input shape (784 for mlp, 1x28x28 for cnn)
 *        | classes=N              number of classes (output units)
 *        | dtype=float32          the only value type supported
 * </pre>
 *
 * Without hidden sizes the kind's {@link NetworkKind#presetHidden() preset} is used; without
 * {@code in=} the data's sample shape as the kind {@link NetworkKind#inputShapeOf reads it}; without
 * {@code classes=} the data's classes. The canonical form, {@code KIND:N,...,in=DxD,classes=N},
 * is what model versions carry on the wire: it does not change.
 */
public final class NetworkText {

    private NetworkText() {}

    /**
     * The spec of {@code kind} that {@code items} (the text after {@code KIND:}; null if none)
     * describe.
     *
     * @throws IllegalArgumentException saying what is wrong (without the whole text: the
     *     registry's message quotes it)
     */
    public static NetworkSpec parse(NetworkKind kind, String items, List<Integer> sampleShape, int dataClasses) {
        List<Integer> hidden = new ArrayList<>();
        List<Integer> in = null;
        Integer classes = null;
        String dtype = NetworkSpec.FLOAT32;
        if (items != null) {
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
            hidden = kind.presetHidden();
        }
        if (in == null) {
            in = kind.inputShapeOf(sampleShape);
        }
        return new NetworkSpec(kind, in, hidden, classes == null ? dataClasses : classes, dtype);
    }

    /**
     * {@code KIND:N,...,in=DxD...,classes=N}, e.g. {@code mlp:256,128,in=784,classes=10} ({@code
     * dtype} is left out: float32 is the only one).
     */
    public static String format(NetworkSpec spec) {
        return spec.kind().name() + ":"
                + spec.hidden().stream().map(String::valueOf).collect(Collectors.joining(",")) + ",in="
                + shape(spec.inputShape()) + ",classes=" + spec.classes();
    }

    /**
     * Refuses a spec whose input is not flat, for a kind that flattens its input ({@code mlp}): its
     * text gives the input as {@code in=N}.
     */
    public static void requireFlatInput(NetworkSpec spec) {
        if (spec.inputShape().size() != 1) {
            throw new IllegalArgumentException(
                    spec.kind().name() + " takes a flat input (in=N), not " + shape(spec.inputShape()));
        }
    }

    /** A shape as the text form writes it: {@code 1x28x28}. */
    public static String shape(List<Integer> shape) {
        return shape.stream().map(String::valueOf).collect(Collectors.joining("x"));
    }

    /** The number of values of a shape ({@code 784} for {@code 1x28x28}). */
    public static int product(List<Integer> shape) {
        long p = 1;
        for (int d : shape) {
            p *= d;
        }
        return Math.toIntExact(p);
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
}
