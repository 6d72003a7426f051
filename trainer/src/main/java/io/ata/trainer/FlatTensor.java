package io.ata.trainer;

import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * A flat vector of numbers kept in one precision: float64 (the quadratic problem) or float32 (a
 * neural network), the model's parameters or one of its optimizer's state vectors. The trainer
 * holds them in the precision it publishes them in, so what it publishes is exactly what it holds
 * and a restart from the published bytes continues bit for bit.
 *
 * <p>Arithmetic happens in double: {@link #get} widens a value exactly, {@link #set} rounds the
 * result to the vector's precision (to nearest, as a Java cast does). So a float32 update is
 * "computed in double, rounded to float when stored", the same on every JVM.
 *
 * <p>Not thread-safe; {@link #copy()} before handing it to another thread.
 */
public abstract sealed class FlatTensor permits FlatTensor.Float64, FlatTensor.Float32 {

    private FlatTensor() {}

    /** Wraps {@code values} (not a copy): float64, published as {@code FLOAT64_LE}. */
    public static FlatTensor of(double[] values) {
        return new Float64(Objects.requireNonNull(values, "values"));
    }

    /** Wraps {@code values} (not a copy): float32, published as {@code FLOAT32_LE}. */
    public static FlatTensor of(float[] values) {
        return new Float32(Objects.requireNonNull(values, "values"));
    }

    /**
     * {@code length} zeros of {@code precision}.
     *
     * @throws IllegalArgumentException unless {@code precision} is FLOAT64_LE or FLOAT32_LE
     */
    public static FlatTensor zeros(int length, TensorEncoding precision) {
        return switch (requireStorable(precision)) {
            case FLOAT64_LE -> new Float64(new double[length]);
            default -> new Float32(new float[length]);
        };
    }

    /**
     * The values of {@code bytes}, in {@code encoding} (FLOAT64_LE or FLOAT32_LE), kept in that
     * precision: decoding what {@link #encode()} wrote gives the same bits back.
     *
     * @throws IllegalArgumentException if the encoding is a 16-bit one (a model is never kept in
     *     one) or the bytes are not a whole number of values
     */
    public static FlatTensor decode(ByteBuffer bytes, TensorEncoding encoding) {
        return switch (requireStorable(encoding)) {
            case FLOAT64_LE -> new Float64(TensorCodec.decode(bytes, encoding));
            default -> new Float32(TensorCodec.decodeFloats(bytes, encoding));
        };
    }

    /** The encodings a model or an optimizer state can be kept in. */
    static TensorEncoding requireStorable(TensorEncoding precision) {
        Objects.requireNonNull(precision, "precision");
        if (precision != TensorEncoding.FLOAT64_LE && precision != TensorEncoding.FLOAT32_LE) {
            throw new IllegalArgumentException(
                    "a model or optimizer state is kept as FLOAT64_LE or FLOAT32_LE, not " + precision);
        }
        return precision;
    }

    /** The number of values. */
    public abstract int length();

    /** Value {@code i}, widened to double (exact). */
    public abstract double get(int i);

    /** Sets value {@code i} to {@code value} rounded to this vector's precision. */
    public abstract void set(int i, double value);

    /** The precision, as the encoding the vector is published in. */
    public abstract TensorEncoding precision();

    /** The values as {@link #precision()} bytes, little-endian. */
    public abstract byte[] encode();

    /** A copy of the values, widened to double. */
    public abstract double[] toDoubles();

    /** An independent copy. */
    public abstract FlatTensor copy();

    /** Whether {@code other} has the same precision and the same bits, value by value. */
    public abstract boolean sameBits(FlatTensor other);

    /** float64 values. */
    static final class Float64 extends FlatTensor {
        private final double[] values;

        Float64(double[] values) {
            this.values = values;
        }

        @Override
        public int length() {
            return values.length;
        }

        @Override
        public double get(int i) {
            return values[i];
        }

        @Override
        public void set(int i, double value) {
            values[i] = value;
        }

        @Override
        public TensorEncoding precision() {
            return TensorEncoding.FLOAT64_LE;
        }

        @Override
        public byte[] encode() {
            return TensorCodec.encode(values, TensorEncoding.FLOAT64_LE);
        }

        @Override
        public double[] toDoubles() {
            return values.clone();
        }

        @Override
        public FlatTensor copy() {
            return new Float64(values.clone());
        }

        @Override
        public boolean sameBits(FlatTensor other) {
            // Arrays.equals on doubles compares bits (doubleToLongBits), as the bytes would
            return other instanceof Float64 f && Arrays.equals(values, f.values);
        }
    }

    /** float32 values. */
    static final class Float32 extends FlatTensor {
        private final float[] values;

        Float32(float[] values) {
            this.values = values;
        }

        @Override
        public int length() {
            return values.length;
        }

        @Override
        public double get(int i) {
            return values[i];
        }

        @Override
        public void set(int i, double value) {
            values[i] = (float) value;
        }

        @Override
        public TensorEncoding precision() {
            return TensorEncoding.FLOAT32_LE;
        }

        @Override
        public byte[] encode() {
            return TensorCodec.encode(values, TensorEncoding.FLOAT32_LE);
        }

        @Override
        public double[] toDoubles() {
            double[] out = new double[values.length];
            for (int i = 0; i < values.length; i++) {
                out[i] = values[i];
            }
            return out;
        }

        @Override
        public FlatTensor copy() {
            return new Float32(values.clone());
        }

        @Override
        public boolean sameBits(FlatTensor other) {
            return other instanceof Float32 f && Arrays.equals(values, f.values);
        }

        /** The values themselves, for the evaluator (no copy: the caller owns this tensor). */
        float[] floats() {
            return values;
        }
    }
}
