package io.ata.ml.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TaskSamplesTest {

    /**
     * Expected lists printed by {@code ml/src/test/python/reference_rules.py}, a reimplementation of
     * the rule written from the class javadoc (TaskSeed, SplittableRandom, partial Fisher–Yates). If
     * one fails, the samples of every task have changed: that must be a deliberate, documented
     * change, never a silent one.
     */
    @Test
    void matchesTheIndependentReference() {
        assertArrayEquals(new int[] {1, 4, 7, 2, 3, 6, 5, 0, 8, 9}, TaskSamples.of(0, "job", 0, 0, 10, 10));
        assertArrayEquals(
                new int[] {33661, 47264, 20936, 51509, 45224, 29427, 43556, 13268},
                TaskSamples.of(42, "fmnist", 3, 7, 60000, 8));
        assertArrayEquals(new int[] {862, 142, 951, 255, 206}, TaskSamples.ofTask(7, "j/12/0", 1000, 5));
        // n = 16: bounds 16, 15, 14, 13 (one power of two: the masked branch of nextInt)
        assertArrayEquals(new int[] {7, 6, 13, 3}, TaskSamples.of(-5, "run-a", 1, 31, 16, 4));
    }

    @Test
    void theTaskIdIsJobRoundIndex() {
        assertEquals("fmnist/3/7", io.ata.workloads.TaskIds.of("fmnist", 3, 7));
        assertArrayEquals(TaskSamples.of(1, "a", 2, 3, 500, 20), TaskSamples.ofTask(1, "a/2/3", 500, 20));
    }

    @Test
    void samplesAreDistinctAndInRange() {
        int[] all = TaskSamples.of(3, "job", 1, 2, 1000, 1000);
        int[] sorted = all.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertEquals(i, sorted[i]);
        }
        // a prefix of the same shuffle: asking for fewer gives the first ones
        assertArrayEquals(Arrays.copyOf(all, 37), TaskSamples.of(3, "job", 1, 2, 1000, 37));
    }

    @Test
    void tooManySamplesIsAnError() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TaskSamples.of(0, "j", 0, 0, 10, 11));
        assertEquals("a task of 11 samples does not fit a data set of 10", e.getMessage());
    }
}
