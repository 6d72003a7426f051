package io.ata.schemas.tensor;

import io.ata.schemas.TensorEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.function.ObjDoubleConsumer;
import java.util.function.ToDoubleFunction;

/**
 * Vectors as the bytes {@code TaskResult.gradient} and {@code ModelVersion.parameters} carry, in
 * the record's {@link TensorEncoding}: little-endian IEEE 754 values, 8 bytes each
 * ({@code FLOAT64_LE}) or 4 ({@code FLOAT32_LE}). The trainer and the agents both read and write
 * tensors through this class, so they cannot disagree on the layout.
 *
 * <p>Buffers are read from their position to their limit and never modified, so a record's
 * buffer can be decoded twice.
 *
 * <p>How it grows: a new encoding (e.g. float16, bfloat16) is a new {@link TensorEncoding} symbol
 * and one more {@link ValueFormat}; other element types (e.g. {@code float[]}) are further
 * overloads of {@code encode} and a {@code decode...} method beside {@link #decode}. Callers of the
 * existing methods are not affected by either.
 */
public final class TensorCodec {
    private TensorCodec() {}

    /** Bytes per value of {@code encoding}. */
    public static int bytesPerValue(TensorEncoding encoding) {
        return ValueFormat.of(encoding).bytes;
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
        ValueFormat format = ValueFormat.of(encoding);
        int n = length(bytes, encoding);
        if (n < 0) {
            throw new IllegalArgumentException(
                    bytes.remaining() + " bytes are not a whole number of " + encoding + " values");
        }
        ByteBuffer in = bytes.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        double[] values = new double[n];
        for (int i = 0; i < n; i++) {
            values[i] = format.read(in);
        }
        return values;
    }

    /**
     * {@code values} as {@code encoding} bytes, ready to wrap into a record's field. A narrower
     * encoding rounds every value (FLOAT32_LE: to the nearest float).
     */
    public static byte[] encode(double[] values, TensorEncoding encoding) {
        ValueFormat format = ValueFormat.of(encoding);
        ByteBuffer out = ByteBuffer.allocate(values.length * format.bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            format.write(out, v);
        }
        return out.array();
    }

    /** How one value of an encoding is read and written (the buffer is little-endian). */
    private enum ValueFormat {
        FLOAT64(Double.BYTES, ByteBuffer::getDouble, ByteBuffer::putDouble),
        FLOAT32(Float.BYTES, ByteBuffer::getFloat, (out, value) -> out.putFloat((float) value));

        final int bytes;
        private final ToDoubleFunction<ByteBuffer> reader;
        private final ObjDoubleConsumer<ByteBuffer> writer;

        ValueFormat(int bytes, ToDoubleFunction<ByteBuffer> reader, ObjDoubleConsumer<ByteBuffer> writer) {
            this.bytes = bytes;
            this.reader = reader;
            this.writer = writer;
        }

        /** The next value of {@code in}, widened to double. */
        double read(ByteBuffer in) {
            return reader.applyAsDouble(in);
        }

        /** Appends {@code value} to {@code out}, rounded to this format. */
        void write(ByteBuffer out, double value) {
            writer.accept(out, value);
        }

        static ValueFormat of(TensorEncoding encoding) {
            return switch (Objects.requireNonNull(encoding, "encoding")) {
                case FLOAT64_LE -> FLOAT64;
                case FLOAT32_LE -> FLOAT32;
            };
        }
    }
}
