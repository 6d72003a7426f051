package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
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
        assertNull(bound.refusal(1000, accepted, 2, Double.NaN), "two results and no previous round: no scale");
        assertNotNull(bound.refusal(1000, accepted, 2, 1.0), "the previous round's median until then");
        assertNull(bound.refusal(20, accepted, 3, 1.0), "20 <= 10 x median 2 of the round's own");
        assertNotNull(bound.refusal(20.5, accepted, 3, 1.0));
    }

    @Test
    void aZeroMedianGivesNoScale() {
        NormBound bound = NormBound.DEFAULT;
        assertNull(bound.refusal(1, new double[] {0, 0, 0}, 3, 0));
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
