package io.ata.trainer;

import io.ata.schemas.TensorEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Vectors as bytes, the way {@code TaskResult.gradient} and {@code ModelVersion.parameters} carry
 * them: little-endian IEEE 754 values, 8 bytes each ({@code FLOAT64_LE}) or 4 ({@code FLOAT32_LE}).
 *
 * <p>Buffers are read from their position to their limit and never modified, so a record's
 * buffer can be decoded twice.
 */
public final class TensorCodec {
    private TensorCodec() {}

    /** Bytes per value of {@code encoding}. */
    public static int bytesPerValue(TensorEncoding encoding) {
        return switch (encoding) {
            case FLOAT64_LE -> Double.BYTES;
            case FLOAT32_LE -> Float.BYTES;
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
     * All values of {@code bytes}.
     *
     * @throws IllegalArgumentException if its length is not a whole number of values
     */
    public static double[] decode(ByteBuffer bytes, TensorEncoding encoding) {
        int n = length(bytes, encoding);
        if (n < 0) {
            throw new IllegalArgumentException(
                    bytes.remaining() + " bytes are not a whole number of " + encoding + " values");
        }
        ByteBuffer view = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            values[i] = encoding == TensorEncoding.FLOAT64_LE ? view.getDouble() : view.getFloat();
        }
        return values;
    }

    /** {@code values} as {@code FLOAT64_LE} bytes, ready to put into a record. */
    public static ByteBuffer encode(double[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            bytes.putDouble(v);
        }
        bytes.flip();
        return bytes;
    }
}
