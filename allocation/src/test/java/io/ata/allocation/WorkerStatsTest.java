package io.ata.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WorkerStatsTest {

    @Test
    void keepsCountSumAndMoments() {
        WorkerStats stats = new WorkerStats(2);
        for (double d : new double[] {1, 2, 3, 10}) {
            stats.record(1, d);
        }
        assertEquals(0, stats.count(0));
        assertTrue(Double.isNaN(stats.mean(0)));
        assertEquals(4, stats.count(1));
        assertEquals(16, stats.sum(1), 0);
        assertEquals(4, stats.mean(1), 0);
        assertEquals((9 + 4 + 1 + 36) / 3.0, stats.variance(1), 1e-12);
        // third central moment: mean of (x - 4)^3 = (-27 - 8 - 1 + 216) / 4
        assertEquals(45, stats.thirdCentralMoment(1), 1e-9);
        assertEquals(4, stats.totalCount());
    }

    @Test
    void censoredTimeEntersTheMeanButNotTheCount() {
        WorkerStats stats = new WorkerStats(1);
        stats.record(0, 4);
        stats.record(0, 6);
        stats.recordCensored(0, 5);
        assertEquals(2, stats.count(0));
        assertEquals(7.5, stats.mean(0), 0, "total time on test / completed tasks");
    }

    @Test
    void growsAndTracksMembership() {
        WorkerStats stats = new WorkerStats(0);
        for (int i = 0; i < 100; i++) {
            assertEquals(i, stats.addWorker());
        }
        stats.record(99, 1.5);
        stats.setActive(3, false);
        assertFalse(stats.isActive(3));
        assertTrue(stats.isActive(99));
        WorkerStats copy = stats.copy();
        stats.record(99, 100);
        assertEquals(1, copy.count(99), "a copy does not follow the original");
        assertThrows(IllegalArgumentException.class, () -> stats.record(0, -1));
        assertThrows(IllegalArgumentException.class, () -> stats.record(0, Double.NaN));
    }
}
