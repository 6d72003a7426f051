package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NormBoundTest {

    @Test
    void theNormOfHugeFiniteValuesDoesNotOverflowToNaN() {
        assertEquals(5, NormBound.l2(new double[] {3, 4}), 1e-12);
        assertEquals(0, NormBound.l2(new double[] {0, 0}));
        double huge = NormBound.l2(new double[] {1e300, 1e300});
        assertEquals(Math.sqrt(2) * 1e300, huge, 1e286);
        assertTrue(NormBound.l2(new double[] {Double.MAX_VALUE, Double.MAX_VALUE}) > 1e308, "Infinity, not NaN");
    }

    @Test
    void theMedianOfTheRoundIsTheScaleOnceItHasEnoughResults() {
        NormBound bound = new NormBound(10, 3, Double.POSITIVE_INFINITY);
        double[] accepted = {1, 2, 3, 0};
        assertFalse(bound.limit(accepted, 2, Double.NaN).exceededBy(1000), "two results and no previous round");
        assertEquals(10, bound.limit(accepted, 2, 1.0).norm(), "the previous round's median until then");
        assertEquals(20, bound.limit(accepted, 3, 1.0).norm(), "10 x median 2 of the round's own");
        assertFalse(bound.limit(accepted, 3, 1.0).exceededBy(20));
        assertTrue(bound.limit(accepted, 3, 1.0).exceededBy(20.5));
    }

    @Test
    void theLowerOfTheCapAndTheRelativeLimitApplies() {
        NormBound bound = new NormBound(10, 1, 15);
        assertEquals(10, bound.limit(new double[] {1}, 1, Double.NaN).norm());
        assertEquals(15, bound.limit(new double[] {2}, 1, Double.NaN).norm());
        assertTrue(bound.limit(new double[] {2}, 1, Double.NaN).reason().contains("cap"));
        assertEquals(
                Double.POSITIVE_INFINITY,
                NormBound.OFF.limit(new double[] {2}, 1, 2).norm());
    }

    @Test
    void aZeroMedianGivesNoScale() {
        NormBound bound = NormBound.DEFAULT;
        assertFalse(bound.limit(new double[] {0, 0, 0}, 3, 0).exceededBy(1));
    }

    @Test
    void clippingKeepsTheDirectionAndSetsTheNorm() {
        double[] v = {3, 4};
        NormBound.clip(v, 5, 1);
        assertArrayEquals(new double[] {0.6, 0.8}, v, 1e-15);
        double[] huge = {Double.MAX_VALUE, -Double.MAX_VALUE};
        NormBound.clip(huge, NormBound.l2(huge), 2);
        assertArrayEquals(new double[] {Math.sqrt(2), -Math.sqrt(2)}, huge, 1e-12, "a norm of Infinity: no NaN");
    }

    @Test
    void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
        assertEquals(2.5, NormBound.median(new double[] {4, 1, 3, 2, 99}, 4));
        assertEquals(3, NormBound.median(new double[] {4, 1, 3}, 3));
        assertTrue(Double.isNaN(NormBound.median(new double[0], 0)));
    }

    @Test
    void refusesSettingsThatMeanNothing() {
        assertThrows(IllegalArgumentException.class, () -> new NormBound(1, 3, 1));
        assertThrows(IllegalArgumentException.class, () -> new NormBound(Double.NaN, 3, 1));
        assertThrows(IllegalArgumentException.class, () -> new NormBound(10, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new NormBound(10, 3, 0));
    }
}
