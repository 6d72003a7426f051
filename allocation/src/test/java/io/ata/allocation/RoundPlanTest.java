package io.ata.allocation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RoundPlanTest {

    @Test
    void aCopyKeepsTheRoundWhenTheOriginalIsReused() {
        RoundPlan original = new RoundPlan(6);
        original.reset(4, 5, 6);
        original.add(2, 3);
        original.add(5, RoundPlan.UNBOUNDED);
        original.add(0, 2);
        RoundPlan copy = new RoundPlan(2);
        copy.reset(1, 1, 2);
        copy.add(1, 1);

        copy.copyFrom(original);
        original.reset(5, 5, 6);
        original.add(1, 5);

        assertEquals(4, copy.round());
        assertEquals(5, copy.quota());
        assertArrayEquals(new int[] {2, 0, 3, 0, 0, RoundPlan.UNBOUNDED}, copy.toArray(6));
        assertEquals(3, copy.supportSize());
        assertEquals(2, copy.supportWorker(0));
        assertEquals(5, copy.supportWorker(1));
        assertEquals(0, copy.supportWorker(2));
    }
}
