package io.ata.schemas.tensor;

/**
 * 16-bit floating point formats, as bit patterns in a {@code short}: IEEE 754 binary16 ("float16":
 * 5 exponent bits, 10 fraction bits, largest finite value 65504) and bfloat16 (the upper 16 bits of
 * a binary32: float's range, 7 fraction bits). Java 17 has neither ({@code Float.floatToFloat16}
 * came in Java 20), so the conversions are written out here, rounding to nearest, ties to even, as
 * hardware and PyTorch do.
 *
 * <p>Which to choose for gradients: bfloat16 keeps float's range (a gradient never overflows to
 * infinity) at a coarser resolution; float16 is finer but overflows above 65504, and an infinite
 * gradient is refused by the trainer.
 */
public final class HalfFloats {
    private HalfFloats() {}

    /** {@code value} as bfloat16 bits, rounded to nearest even; NaN stays NaN. */
    public static short toBfloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            return (short) ((bits >>> 16) | 0x0040); // keep the sign, force a quiet NaN
        }
        int roundingBias = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + roundingBias) >>> 16);
    }

    /** The float that bfloat16 {@code bits} stand for (exact). */
    public static float fromBfloat16(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** {@code value} as IEEE binary16 bits, rounded to nearest even; overflow gives infinity. */
    public static short toFloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 16) & 0x8000;
        int exponent = (bits >>> 23) & 0xFF;
        int mantissa = bits & 0x7FFFFF;
        if (exponent == 0xFF) { // infinity or NaN
            return (short) (sign | 0x7C00 | (mantissa != 0 ? 0x200 | (mantissa >>> 13) : 0));
        }
        int halfExponent = exponent - 127 + 15;
        if (halfExponent >= 0x1F) {
            return (short) (sign | 0x7C00); // too large: infinity
        }
        if (halfExponent <= 0) { // a subnormal binary16, or zero
            if (halfExponent < -10) {
                return (short) sign; // below half the smallest subnormal: signed zero
            }
            int full = mantissa | 0x800000; // the implicit leading 1
            int shift = 14 - halfExponent;
            int half = full >>> shift;
            int remainder = full & ((1 << shift) - 1);
            int halfway = 1 << (shift - 1);
            if (remainder > halfway || (remainder == halfway && (half & 1) != 0)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = (halfExponent << 10) | (mantissa >>> 13);
        int remainder = mantissa & 0x1FFF;
        if (remainder > 0x1000 || (remainder == 0x1000 && (half & 1) != 0)) {
            half++; // may carry into the exponent, up to infinity: still right
        }
        return (short) (sign | half);
    }

    /** The float that binary16 {@code bits} stand for (exact). */
    public static float fromFloat16(short bits) {
        int h = bits & 0xFFFF;
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1F;
        int mantissa = h & 0x3FF;
        if (exponent == 0x1F) {
            return Float.intBitsToFloat(sign | 0x7F800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float magnitude = mantissa * 0x1p-24f; // subnormal (or zero): mantissa * 2^-24, exact
            return sign == 0 ? magnitude : -magnitude;
        }
        return Float.intBitsToFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
    }
}
