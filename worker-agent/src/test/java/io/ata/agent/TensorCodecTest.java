package io.ata.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.schemas.TensorEncoding;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class TensorCodecTest {

    @Test
    void float64IsLittleEndian() {
        byte[] bytes = TensorCodec.encode(new double[] {1.0}, TensorEncoding.FLOAT64_LE);
        // 1.0 = 0x3FF0000000000000, least significant byte first
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, (byte) 0xF0, 0x3F}, bytes);
    }

    @Test
    void roundTrips() {
        double[] values = {0, -1.5, Math.PI, 1e-300, Double.MAX_VALUE};
        byte[] bytes = TensorCodec.encode(values, TensorEncoding.FLOAT64_LE);
        assertArrayEquals(values, TensorCodec.decode(ByteBuffer.wrap(bytes), TensorEncoding.FLOAT64_LE), 0);

        double[] floats = {0, -1.5, 0.25};
        byte[] four = TensorCodec.encode(floats, TensorEncoding.FLOAT32_LE);
        assertEquals(12, four.length);
        assertArrayEquals(floats, TensorCodec.decode(ByteBuffer.wrap(four), TensorEncoding.FLOAT32_LE), 0);
    }

    @Test
    void decodingDoesNotMoveTheBuffer() {
        ByteBuffer buffer = ByteBuffer.wrap(TensorCodec.encode(new double[] {2, 3}, TensorEncoding.FLOAT64_LE));
        TensorCodec.decode(buffer, TensorEncoding.FLOAT64_LE);
        assertEquals(0, buffer.position());
    }

    @Test
    void refusesAPartialValue() {
        assertThrows(
                IllegalArgumentException.class,
                () -> TensorCodec.decode(ByteBuffer.wrap(new byte[9]), TensorEncoding.FLOAT64_LE));
    }
}
