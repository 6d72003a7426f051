package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LogBudgetTest {
    @Test
    void soManyLinesAWindowAndTheRestSummedUpWhenItEnds() {
        LogBudget budget = new LogBudget(2, 1000);
        assertTrue(budget.allow(0));
        assertTrue(budget.allow(10));
        assertFalse(budget.allow(20));
        assertFalse(budget.allow(999));
        assertEquals(0, budget.heldBackLastWindow());
        assertTrue(budget.allow(1000), "a new window");
        assertEquals(2, budget.heldBackLastWindow(), "the last one held back two");
        assertTrue(budget.allow(1001));
        assertEquals(0, budget.heldBackLastWindow(), "reported once");
    }
}
