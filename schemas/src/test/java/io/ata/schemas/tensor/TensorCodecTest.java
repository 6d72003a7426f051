package io.ata.schemas.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.schemas.TensorEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class TensorCodecTest {

    @Test
    void float64IsLittleEndian() {
        byte[] bytes = TensorCodec.encode(new double[] {1.0}, TensorEncoding.FLOAT64_LE);
        // 1.0 = 0x3FF0000000000000, least significant byte first
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, (byte) 0xF0, 0x3F}, bytes);
    }

    @Test
    void float32IsLittleEndian() {
        byte[] bytes = TensorCodec.encode(new double[] {1.0}, TensorEncoding.FLOAT32_LE);
        // 1.0f = 0x3F800000
        assertArrayEquals(new byte[] {0, 0, (byte) 0x80, 0x3F}, bytes);
    }

    @Test
    void roundTrips() {
        double[] values = {0, -1.5, Math.PI, 1e-300, Double.MAX_VALUE};
        byte[] bytes = TensorCodec.encode(values, TensorEncoding.FLOAT64_LE);
        assertEquals(40, bytes.length);
        assertArrayEquals(values, TensorCodec.decode(ByteBuffer.wrap(bytes), TensorEncoding.FLOAT64_LE), 0);

        double[] floats = {0, -1.5, 0.25};
        byte[] four = TensorCodec.encode(floats, TensorEncoding.FLOAT32_LE);
        assertEquals(12, four.length);
        assertArrayEquals(floats, TensorCodec.decode(ByteBuffer.wrap(four), TensorEncoding.FLOAT32_LE), 0);
    }

    @Test
    void float32RoundsToTheNearestFloat() {
        double[] decoded = TensorCodec.decode(
                ByteBuffer.wrap(TensorCodec.encode(new double[] {Math.PI}, TensorEncoding.FLOAT32_LE)),
                TensorEncoding.FLOAT32_LE);
        assertEquals((float) Math.PI, decoded[0], 0);
    }

    @Test
    void readsWhatAnotherWriterWrote() {
        ByteBuffer written = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        written.putFloat(1.5f).putFloat(-3f).flip();
        assertEquals(2, TensorCodec.length(written, TensorEncoding.FLOAT32_LE));
        assertArrayEquals(new double[] {1.5, -3}, TensorCodec.decode(written, TensorEncoding.FLOAT32_LE), 0);
    }

    @Test
    void decodingReadsFromPositionToLimitAndDoesNotMoveTheBuffer() {
        ByteBuffer buffer = ByteBuffer.wrap(TensorCodec.encode(new double[] {2, 3, 4}, TensorEncoding.FLOAT64_LE));
        buffer.position(8).limit(16);
        assertArrayEquals(new double[] {3}, TensorCodec.decode(buffer, TensorEncoding.FLOAT64_LE), 0);
        assertArrayEquals(new double[] {3}, TensorCodec.decode(buffer, TensorEncoding.FLOAT64_LE), 0, "again");
        assertEquals(8, buffer.position());
        assertEquals(16, buffer.limit());
    }

    @Test
    void partialValuesHaveNoLengthAndDoNotDecode() {
        ByteBuffer bytes = ByteBuffer.wrap(new byte[12]);
        assertEquals(-1, TensorCodec.length(bytes, TensorEncoding.FLOAT64_LE));
        assertEquals(3, TensorCodec.length(bytes, TensorEncoding.FLOAT32_LE));
        IllegalArgumentException error = assertThrows(
                IllegalArgumentException.class, () -> TensorCodec.decode(bytes, TensorEncoding.FLOAT64_LE));
        assertEquals("12 bytes are not a whole number of FLOAT64_LE values", error.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> TensorCodec.decode(ByteBuffer.wrap(new byte[9]), TensorEncoding.FLOAT64_LE));
    }

    @Test
    void bytesPerValue() {
        assertEquals(8, TensorCodec.bytesPerValue(TensorEncoding.FLOAT64_LE));
        assertEquals(4, TensorCodec.bytesPerValue(TensorEncoding.FLOAT32_LE));
    }

    @Test
    void anEmptyVectorIsNoBytes() {
        assertEquals(0, TensorCodec.encode(new double[0], TensorEncoding.FLOAT64_LE).length);
        assertArrayEquals(new double[0], TensorCodec.decode(ByteBuffer.allocate(0), TensorEncoding.FLOAT32_LE), 0);
    }

    @Test
    void floatsTravelInEveryEncoding() {
        float[] values = {0f, -1.5f, 0.25f, 3.0e-3f, 1024f};
        for (TensorEncoding encoding : TensorEncoding.values()) {
            byte[] bytes = TensorCodec.encode(values, encoding);
            assertEquals(values.length * TensorCodec.bytesPerValue(encoding), bytes.length, encoding.name());
            float[] back = TensorCodec.decodeFloats(ByteBuffer.wrap(bytes), encoding);
            double[] wide = TensorCodec.decode(ByteBuffer.wrap(bytes), encoding);
            for (int i = 0; i < values.length; i++) {
                // exact for float64/32; within the 16-bit formats' relative precision otherwise
                double tolerance = bytes.length / values.length == 2 ? Math.abs(values[i]) / 128 : 0;
                assertEquals(values[i], back[i], tolerance, encoding + " value " + i);
                assertEquals(back[i], wide[i], 0, encoding + " value " + i);
            }
        }
    }

    @Test
    void float32ArraysAreBitExact() {
        float[] values = new float[1000];
        java.util.SplittableRandom random = new java.util.SplittableRandom(3);
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.intBitsToFloat(random.nextInt());
        }
        float[] back = TensorCodec.decodeFloats(
                ByteBuffer.wrap(TensorCodec.encode(values, TensorEncoding.FLOAT32_LE)), TensorEncoding.FLOAT32_LE);
        for (int i = 0; i < values.length; i++) {
            assertEquals(Float.floatToRawIntBits(values[i]), Float.floatToRawIntBits(back[i]), "value " + i);
        }
        byte[] viaDoubles = TensorCodec.encode(
                TensorCodec.decode(
                        ByteBuffer.wrap(TensorCodec.encode(values, TensorEncoding.FLOAT32_LE)),
                        TensorEncoding.FLOAT32_LE),
                TensorEncoding.FLOAT32_LE);
        assertArrayEquals(TensorCodec.encode(values, TensorEncoding.FLOAT32_LE), viaDoubles);
    }

    @Test
    void sixteenBitEncodingsAreLittleEndian() {
        // 1.0 is 0x3C00 in binary16 and 0x3F80 in bfloat16
        assertArrayEquals(new byte[] {0x00, 0x3C}, TensorCodec.encode(new float[] {1f}, TensorEncoding.FLOAT16_LE));
        assertArrayEquals(
                new byte[] {(byte) 0x80, 0x3F}, TensorCodec.encode(new float[] {1f}, TensorEncoding.BFLOAT16_LE));
        assertThrows(
                IllegalArgumentException.class,
                () -> TensorCodec.decodeFloats(ByteBuffer.wrap(new byte[3]), TensorEncoding.FLOAT16_LE));
    }

    @Test
    void findsTheFirstNonFiniteValueInEveryEncoding() {
        for (TensorEncoding encoding : TensorEncoding.values()) {
            double[] finite = {1, -2.5, 0};
            assertEquals(
                    -1, TensorCodec.firstNonFinite(ByteBuffer.wrap(TensorCodec.encode(finite, encoding)), encoding));
            double[] nan = {1, Double.NaN, Double.POSITIVE_INFINITY};
            assertEquals(
                    1,
                    TensorCodec.firstNonFinite(ByteBuffer.wrap(TensorCodec.encode(nan, encoding)), encoding),
                    encoding.name());
        }
        double[] huge = {1e300};
        assertEquals(
                -1,
                TensorCodec.firstNonFinite(
                        ByteBuffer.wrap(TensorCodec.encode(huge, TensorEncoding.FLOAT64_LE)),
                        TensorEncoding.FLOAT64_LE),
                "huge but finite");
    }
}
