package io.ata.trainer;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The canonical text of an optimizer and its hyper-parameters, e.g.
 * {@code adam(lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,wd=0)}: published with every optimizer
 * state, and compared as a string by a restarted trainer, so one configuration must have exactly
 * one spelling.
 *
 * <p>Numbers are written with the fewest digits that read back as the same double (Java's
 * {@link Double#toString} digits), in plain notation when {@code 1e-4 <= |x| < 1e16} ({@code 0.001},
 * {@code 0.9}, {@code 3}) and otherwise as {@code d.ddde-XX} with at least two exponent digits
 * ({@code 1e-08}, {@code 2.5e-05}): the way Python prints floats, so the text reads the same in a
 * notebook. Zero is {@code 0}.
 */
final class HyperParameters {
    private final String name;
    private final Map<String, Double> values = new LinkedHashMap<>();

    private HyperParameters(String name) {
        this.name = name;
    }

    /** The text of optimizer {@code name}; add its hyper-parameters in their canonical order. */
    static HyperParameters of(String name) {
        return new HyperParameters(name);
    }

    HyperParameters with(String key, double value) {
        values.put(key, value);
        return this;
    }

    /** {@code name(key=value,...)}. */
    String text() {
        StringJoiner joined = new StringJoiner(",", name + "(", ")");
        values.forEach((key, value) -> joined.add(key + "=" + number(value)));
        return joined.toString();
    }

    /** Checks {@code value}, hyper-parameter {@code what}, is positive and finite (a learning rate, an epsilon). */
    static void requirePositive(double value, String what) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(what + " must be positive and finite, was " + value);
        }
    }

    /** Checks {@code value}, hyper-parameter {@code what}, is in {@code [0, 1)} (a momentum, a beta). */
    static void requireFraction(double value, String what) {
        if (!(value >= 0 && value < 1)) {
            throw new IllegalArgumentException(what + " must be in [0, 1), was " + value);
        }
    }

    /** Checks {@code value}, the weight decay, is finite and {@code >= 0}. */
    static void requireWeightDecay(double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("weight decay must be >= 0 and finite, was " + value);
        }
    }

    /** {@code value} in the canonical notation (see the class comment). */
    static String number(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("hyper-parameter " + value + " is not finite");
        }
        if (value == 0) {
            return "0";
        }
        BigDecimal shortest = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        int exponent = shortest.precision() - shortest.scale() - 1; // of the leading digit
        if (exponent >= -4 && exponent < 16) {
            return shortest.toPlainString();
        }
        String digits = shortest.unscaledValue().abs().toString();
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return (value < 0 ? "-" : "")
                + mantissa
                + "e"
                + (exponent < 0 ? "-" : "+")
                + String.format(Locale.ROOT, "%02d", Math.abs(exponent));
    }
}
