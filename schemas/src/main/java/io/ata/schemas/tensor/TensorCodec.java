package io.ata.schemas.tensor;

import io.ata.schemas.TensorEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Vectors as the bytes {@code TaskResult.gradient}, {@code ModelVersion.parameters} and
 * {@code OptimizerState.state} carry, in the record's {@link TensorEncoding}: little-endian values of
 * 8 bytes ({@code FLOAT64_LE}), 4 ({@code FLOAT32_LE}) or 2 ({@code FLOAT16_LE}, IEEE binary16;
 * {@code BFLOAT16_LE}, the upper half of a binary32). The trainer and the agents read and write
 * tensors only through this class, so they cannot disagree on the layout.
 *
 * <p>Vectors are {@code double[]} (the quadratic problem) or {@code float[]} (neural networks);
 * either can be written in any encoding, a narrower one rounding to nearest (even). Buffers are read
 * from their position to their limit and never modified, so a record's buffer can be decoded twice.
 */
public final class TensorCodec {
    private TensorCodec() {}

    /** Bytes per value of {@code encoding}. */
    public static int bytesPerValue(TensorEncoding encoding) {
        return switch (Objects.requireNonNull(encoding, "encoding")) {
            case FLOAT64_LE -> Double.BYTES;
            case FLOAT32_LE -> Float.BYTES;
            case FLOAT16_LE, BFLOAT16_LE -> 2;
        };
    }

    /**
     * The number of values in {@code bytes}, or -1 if its length is not a whole number of values
     * (a truncated or foreign payload).
     */
    public static int length(ByteBuffer bytes, TensorEncoding encoding) {
        int size = bytesPerValue(encoding);
        int remaining = bytes.remaining();
        return remaining % size == 0 ? remaining / size : -1;
    }

    /**
     * All values of {@code bytes}, widened to {@code double}.
     *
     * @throws IllegalArgumentException if its length is not a whole number of values
     */
    public static double[] decode(ByteBuffer bytes, TensorEncoding encoding) {
        ByteBuffer in = littleEndian(bytes, encoding);
        int n = in.remaining() / bytesPerValue(encoding);
        double[] values = new double[n];
        switch (encoding) {
            case FLOAT64_LE -> in.asDoubleBuffer().get(values);
            case FLOAT32_LE -> {
                for (int i = 0; i < n; i++) {
                    values[i] = in.getFloat();
                }
            }
            case FLOAT16_LE, BFLOAT16_LE -> {
                for (int i = 0; i < n; i++) {
                    values[i] = getHalf(in, encoding);
                }
            }
        }
        return values;
    }

    /**
     * All values of {@code bytes} as {@code float}s ({@code FLOAT64_LE} values are rounded to the
     * nearest float).
     *
     * @throws IllegalArgumentException if its length is not a whole number of values
     */
    public static float[] decodeFloats(ByteBuffer bytes, TensorEncoding encoding) {
        ByteBuffer in = littleEndian(bytes, encoding);
        int n = in.remaining() / bytesPerValue(encoding);
        float[] values = new float[n];
        switch (encoding) {
            case FLOAT32_LE -> in.asFloatBuffer().get(values);
            case FLOAT64_LE -> {
                for (int i = 0; i < n; i++) {
                    values[i] = (float) in.getDouble();
                }
            }
            case FLOAT16_LE, BFLOAT16_LE -> {
                for (int i = 0; i < n; i++) {
                    values[i] = getHalf(in, encoding);
                }
            }
        }
        return values;
    }

    /**
     * The index of the first NaN or infinite value of {@code bytes}, or -1 if every value is
     * finite. Reads the buffer in place, without decoding it into an array: a reader can check a
     * large model version before it keeps it.
     *
     * @throws IllegalArgumentException if its length is not a whole number of values
     */
    public static int firstNonFinite(ByteBuffer bytes, TensorEncoding encoding) {
        ByteBuffer in = littleEndian(bytes, encoding);
        int n = in.remaining() / bytesPerValue(encoding);
        for (int i = 0; i < n; i++) {
            double value = switch (encoding) {
                case FLOAT64_LE -> in.getDouble();
                case FLOAT32_LE -> in.getFloat();
                case FLOAT16_LE, BFLOAT16_LE -> getHalf(in, encoding);
            };
            if (!Double.isFinite(value)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * {@code values} as {@code encoding} bytes, ready to wrap into a record's field. A narrower
     * encoding rounds every value to nearest (FLOAT32_LE: to the nearest float).
     */
    public static byte[] encode(double[] values, TensorEncoding encoding) {
        ByteBuffer out = allocate(values.length, encoding);
        switch (encoding) {
            case FLOAT64_LE -> out.asDoubleBuffer().put(values);
            case FLOAT32_LE -> {
                for (double v : values) {
                    out.putFloat((float) v);
                }
            }
            case FLOAT16_LE, BFLOAT16_LE -> {
                for (double v : values) {
                    putHalf(out, (float) v, encoding);
                }
            }
        }
        return out.array();
    }

    /** {@code values} as {@code encoding} bytes; FLOAT16_LE and BFLOAT16_LE round to nearest even. */
    public static byte[] encode(float[] values, TensorEncoding encoding) {
        ByteBuffer out = allocate(values.length, encoding);
        switch (encoding) {
            case FLOAT32_LE -> out.asFloatBuffer().put(values);
            case FLOAT64_LE -> {
                for (float v : values) {
                    out.putDouble(v);
                }
            }
            case FLOAT16_LE, BFLOAT16_LE -> {
                for (float v : values) {
                    putHalf(out, v, encoding);
                }
            }
        }
        return out.array();
    }

    /** The next value of a 2-byte encoding ({@code FLOAT16_LE} or {@code BFLOAT16_LE}), as a float. */
    private static float getHalf(ByteBuffer in, TensorEncoding encoding) {
        short bits = in.getShort();
        return encoding == TensorEncoding.FLOAT16_LE ? HalfFloats.fromFloat16(bits) : HalfFloats.fromBfloat16(bits);
    }

    /** Writes {@code v} in a 2-byte encoding, rounded to the nearest (even) value it holds. */
    private static void putHalf(ByteBuffer out, float v, TensorEncoding encoding) {
        out.putShort(encoding == TensorEncoding.FLOAT16_LE ? HalfFloats.toFloat16(v) : HalfFloats.toBfloat16(v));
    }

    private static ByteBuffer allocate(int values, TensorEncoding encoding) {
        long bytes = (long) values * bytesPerValue(encoding);
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(values + " values of " + encoding + " do not fit one byte array");
        }
        return ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer littleEndian(ByteBuffer bytes, TensorEncoding encoding) {
        if (length(bytes, encoding) < 0) {
            throw new IllegalArgumentException(
                    bytes.remaining() + " bytes are not a whole number of " + encoding + " values");
        }
        return bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }
}
