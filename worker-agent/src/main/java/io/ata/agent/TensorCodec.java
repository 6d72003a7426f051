package io.ata.agent;

import io.ata.schemas.TensorEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Converts between {@code double[]} and the little-endian tensor bytes of {@code ModelVersion}
 * parameters and {@code TaskResult} gradients ({@link TensorEncoding}).
 */
public final class TensorCodec {

    private TensorCodec() {}

    /** {@code values} as {@code encoding} bytes (FLOAT32_LE rounds every value to float). */
    public static byte[] encode(double[] values, TensorEncoding encoding) {
        Objects.requireNonNull(encoding, "encoding");
        ByteBuffer out = ByteBuffer.allocate(values.length * width(encoding)).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            if (encoding == TensorEncoding.FLOAT64_LE) {
                out.putDouble(v);
            } else {
                out.putFloat((float) v);
            }
        }
        return out.array();
    }

    /**
     * The values in {@code bytes} (from its position to its limit; the buffer is not moved).
     *
     * @throws IllegalArgumentException if the length is not a multiple of the value width
     */
    public static double[] decode(ByteBuffer bytes, TensorEncoding encoding) {
        Objects.requireNonNull(encoding, "encoding");
        ByteBuffer in = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int width = width(encoding);
        if (in.remaining() % width != 0) {
            throw new IllegalArgumentException(
                    in.remaining() + " bytes is not a whole number of " + encoding + " values");
        }
        double[] values = new double[in.remaining() / width];
        for (int i = 0; i < values.length; i++) {
            values[i] = encoding == TensorEncoding.FLOAT64_LE ? in.getDouble() : in.getFloat();
        }
        return values;
    }

    /** Bytes per value. */
    public static int width(TensorEncoding encoding) {
        return switch (encoding) {
            case FLOAT64_LE -> Double.BYTES;
            case FLOAT32_LE -> Float.BYTES;
        };
    }
}
