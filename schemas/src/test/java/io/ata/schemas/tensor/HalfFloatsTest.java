package io.ata.schemas.tensor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HalfFloatsTest {

    /** binary16 by its definition: (-1)^s 2^(e-15) (1 + f/1024), subnormals 2^-14 (f/1024). */
    private static double float16Reference(int h) {
        int s = (h >>> 15) & 1;
        int e = (h >>> 10) & 0x1F;
        int f = h & 0x3FF;
        double magnitude = e == 0 ? Math.scalb(f / 1024.0, -14) : Math.scalb(1 + f / 1024.0, e - 15);
        if (e == 0x1F) {
            magnitude = f == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
        }
        return s == 1 ? -magnitude : magnitude;
    }

    @Test
    void everyFloat16DecodesToItsDefinitionAndEncodesBack() {
        for (int h = 0; h < 1 << 16; h++) {
            double expected = float16Reference(h);
            float decoded = HalfFloats.fromFloat16((short) h);
            if (Double.isNaN(expected)) {
                assertTrue(Float.isNaN(decoded), "pattern " + h);
                assertTrue(Float.isNaN(HalfFloats.fromFloat16(HalfFloats.toFloat16(decoded))));
                continue;
            }
            assertEquals(expected, decoded, 0, "pattern " + h);
            assertEquals(h, HalfFloats.toFloat16(decoded) & 0xFFFF, "round trip of pattern " + h);
        }
    }

    @Test
    void float16RoundsToNearestEven() {
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 200_000; i++) {
            float x = Float.intBitsToFloat(random.nextInt());
            if (Float.isNaN(x) || Math.abs(x) > 70_000f) {
                continue;
            }
            int h = HalfFloats.toFloat16(x) & 0xFFFF;
            double got = float16Reference(h);
            if (Double.isInfinite(got)) {
                assertTrue(Math.abs(x) >= 65520f, x + " overflowed");
                continue;
            }
            // no representable neighbour is nearer; on a tie the chosen one is even
            for (int neighbour : new int[] {h - 1, h + 1}) {
                double other = float16Reference(neighbour & 0xFFFF);
                if ((neighbour & 0x7C00) == 0x7C00 || Double.isNaN(other) || (neighbour & 0x8000) != (h & 0x8000)) {
                    continue;
                }
                double mine = Math.abs(x - got);
                double theirs = Math.abs(x - other);
                assertTrue(mine < theirs || (mine == theirs && (h & 1) == 0), x + " -> " + got + ", not " + other);
            }
        }
    }

    @Test
    void float16EdgeCases() {
        assertEquals(0x7C00, HalfFloats.toFloat16(65520f) & 0xFFFF); // halfway past the largest: infinity
        assertEquals(0x7BFF, HalfFloats.toFloat16(65519f) & 0xFFFF); // 65504
        assertEquals(0x8000, HalfFloats.toFloat16(-0f) & 0xFFFF);
        assertEquals(0x0001, HalfFloats.toFloat16(0x1p-24f) & 0xFFFF); // the smallest subnormal
        assertEquals(0x0000, HalfFloats.toFloat16(0x1p-25f) & 0xFFFF); // a tie, to the even zero
        assertEquals(0xFC00, HalfFloats.toFloat16(Float.NEGATIVE_INFINITY) & 0xFFFF);
    }

    @Test
    void bfloat16IsTheUpperHalfRoundedToNearestEven() {
        assertEquals(0x3F80, HalfFloats.toBfloat16(1f) & 0xFFFF);
        assertEquals(1f, HalfFloats.fromBfloat16((short) 0x3F80));
        // 1 + 2^-8 lies exactly between 1 and 1 + 2^-7: ties to the even 1
        assertEquals(0x3F80, HalfFloats.toBfloat16(1f + 0x1p-8f) & 0xFFFF);
        // 1 + 3 * 2^-8 lies between 1 + 2^-7 (odd) and 1 + 2^-6 (even): to the even one
        assertEquals(0x3F82, HalfFloats.toBfloat16(1f + 3 * 0x1p-8f) & 0xFFFF);
        assertTrue(Float.isNaN(HalfFloats.fromBfloat16(HalfFloats.toBfloat16(Float.NaN))));
        SplittableRandom random = new SplittableRandom(2);
        for (int i = 0; i < 100_000; i++) {
            float x = Float.intBitsToFloat(random.nextInt());
            if (Float.isNaN(x) || Float.isInfinite(x)) {
                continue;
            }
            float back = HalfFloats.fromBfloat16(HalfFloats.toBfloat16(x));
            // within half a unit of bfloat16's last place (8 significant bits)
            assertTrue(Math.abs(back - x) <= Math.ulp(x) * 65536 || Float.isInfinite(back), x + " -> " + back);
        }
    }
}
