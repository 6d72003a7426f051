package io.ata.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ComputeTimeTest {
    @Test
    void zeroToSevenDaysIsValid() {
        assertTrue(ComputeTime.isValid(0));
        assertTrue(ComputeTime.isValid(12.5));
        assertTrue(ComputeTime.isValid(7 * 24 * 3600 * 1000.0));
        assertNull(ComputeTime.problem("compute_ms", 3));
    }

    @Test
    void negativeNonFiniteAndLongerThanSevenDaysAreNot() {
        for (double bad : new double[] {
            -1e-9,
            -1,
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY,
            Math.nextUp(ComputeTime.MAX_MS),
            1e300
        }) {
            assertFalse(ComputeTime.isValid(bad), () -> "valid: " + bad);
        }
        assertEquals(
                "compute_ms NaN is out of range (0 to 604800000 ms)", ComputeTime.problem("compute_ms", Double.NaN));
    }
}
