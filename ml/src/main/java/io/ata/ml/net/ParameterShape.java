package io.ata.ml.net;

import java.util.List;
import java.util.Objects;

/**
 * One parameter tensor of a network: its name (as DJL names it in the built network, e.g.
 * {@code 01Linear_weight}) and its shape (e.g. {@code [256, 784]}).
 */
public record ParameterShape(String name, List<Integer> shape) {

    public ParameterShape {
        Objects.requireNonNull(name, "name");
        shape = List.copyOf(shape);
        for (int d : shape) {
            if (d < 1) {
                throw new IllegalArgumentException(name + ": dimension " + d + " in " + shape + " is not positive");
            }
        }
    }

    public static ParameterShape of(String name, int... dims) {
        return new ParameterShape(name, java.util.Arrays.stream(dims).boxed().toList());
    }

    /** Number of values in the tensor (the product of the dimensions). */
    public long size() {
        long size = 1;
        for (int d : shape) {
            size = Math.multiplyExact(size, d);
        }
        return size;
    }

    /** Product of all dimensions but the first: the fan-in of a weight ({@code in * kh * kw}). */
    public long fanIn() {
        return size() / shape.get(0);
    }

    @Override
    public String toString() {
        return name + shape;
    }
}
