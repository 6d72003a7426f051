package io.ata.ml.net;

import java.util.List;

/**
 * The ordered parameter tensors of a network and where each one sits in the flat {@code float[]}
 * that carries all of them (tensor after tensor, each in row-major order). The trainer publishes it
 * with every model version; an agent checks its built network against it with {@link
 * #requireSame(ParameterLayout, String)}.
 */
public final class ParameterLayout {
    /** The largest flat array the JVM reliably allocates. */
    static final long MAX_TOTAL = Integer.MAX_VALUE - 8;

    private final List<ParameterShape> parameters;
    private final int[] offsets;
    private final int totalSize;

    private ParameterLayout(List<ParameterShape> parameters) {
        this.parameters = List.copyOf(parameters);
        this.offsets = new int[this.parameters.size()];
        long total = 0;
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = (int) total;
            total += this.parameters.get(i).size();
            if (total > MAX_TOTAL) {
                throw new IllegalArgumentException(
                        "the network has more than " + MAX_TOTAL + " parameters, more than one flat float array holds");
            }
        }
        this.totalSize = (int) total;
    }

    public static ParameterLayout of(List<ParameterShape> parameters) {
        return new ParameterLayout(parameters);
    }

    /** The tensors, in the order of the flat array. */
    public List<ParameterShape> parameters() {
        return parameters;
    }

    /** Total number of values: the length of the flat parameter (and gradient) array. */
    public int totalSize() {
        return totalSize;
    }

    /** Index in the flat array of the first value of tensor {@code i}. */
    public int offset(int i) {
        return offsets[i];
    }

    /**
     * Throws {@link LayoutMismatchException} naming the first difference (tensor count, name or
     * shape) unless {@code actual} has exactly these tensors in this order.
     *
     * @param actualName what {@code actual} is, for the message (e.g. "the network built here")
     */
    public void requireSame(ParameterLayout actual, String actualName) {
        int n = Math.min(parameters.size(), actual.parameters.size());
        for (int i = 0; i < n; i++) {
            ParameterShape want = parameters.get(i);
            ParameterShape got = actual.parameters.get(i);
            if (!want.equals(got)) {
                throw new LayoutMismatchException(
                        "parameter #" + i + " differs: expected " + want + ", " + actualName + " has " + got);
            }
        }
        if (parameters.size() != actual.parameters.size()) {
            String first = parameters.size() > n
                    ? "first missing: " + parameters.get(n)
                    : "first extra: " + actual.parameters.get(n);
            throw new LayoutMismatchException("expected " + parameters.size() + " parameter tensors, " + actualName
                    + " has " + actual.parameters.size() + " (" + first + ")");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ParameterLayout other && parameters.equals(other.parameters);
    }

    @Override
    public int hashCode() {
        return parameters.hashCode();
    }

    @Override
    public String toString() {
        return parameters + " (" + totalSize + " values)";
    }
}
