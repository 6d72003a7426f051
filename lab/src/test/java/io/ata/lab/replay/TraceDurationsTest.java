package io.ata.lab.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.sim.DurationSource.ExhaustedException;
import io.ata.lab.timinglog.TimingLog;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.lab.timinglog.TimingRecord.Status;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TraceDurationsTest {

    /** w0: 1,2,3 ; w1: 10,20 (plus a cancelled 99 that must never be served) ; w2: only cancelled. */
    private static TimingLog log() {
        List<TimingRecord> r = new ArrayList<>();
        r.add(new TimingRecord("w0", 1));
        r.add(new TimingRecord("w1", 10));
        r.add(new TimingRecord("w0", 2));
        r.add(new TimingRecord("w1", 99, null, null, null, Status.CANCELLED));
        r.add(new TimingRecord("w0", 3));
        r.add(new TimingRecord("w1", 20));
        r.add(new TimingRecord("w2", 5, null, null, null, Status.CANCELLED));
        return TimingLog.of(r);
    }

    private static double[] take(TraceDurations src, int worker, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = src.next(worker);
        }
        return d;
    }

    @Test
    void recordedDurationsComeFirstInEveryMode() {
        for (ExhaustionMode mode : ExhaustionMode.values()) {
            TraceDurations src = new TraceDurations(log(), mode, 1);
            assertEquals(10, src.next(1), mode.name());
            assertArrayEquals(new double[] {1, 2, 3}, take(src, 0, 3), mode.name());
            assertEquals(20, src.next(1), mode.name());
            assertEquals(0, src.exhaustedWorkers(), mode.name());
            assertFalse(src.exhausted(0));
        }
    }

    @Test
    void cycleRestartsFromTheFirstRecordInOrder() {
        TraceDurations src = new TraceDurations(log(), ExhaustionMode.CYCLE, 1);
        assertArrayEquals(new double[] {1, 2, 3, 1, 2, 3, 1, 2}, take(src, 0, 8));
        assertArrayEquals(new double[] {10, 20, 10, 20, 10}, take(src, 1, 5));
        assertEquals(2, src.exhaustedWorkers());
        assertEquals(5 + 3, src.extraDurations());
        assertTrue(src.exhausted(0));
        assertEquals(8, src.calls(0));
    }

    @Test
    void bootstrapDrawsOnlyRecordedValuesRoughlyUniformly() {
        TraceDurations src = new TraceDurations(log(), ExhaustionMode.BOOTSTRAP, 42);
        take(src, 0, 3);
        int n = 30_000;
        int[] counts = new int[4];
        for (int i = 0; i < n; i++) {
            double d = src.next(0);
            assertTrue(d == 1 || d == 2 || d == 3, "not a recorded duration: " + d);
            counts[(int) d]++;
        }
        for (int v = 1; v <= 3; v++) {
            assertEquals(n / 3.0, counts[v], 5 * Math.sqrt(n * (1 / 3.0) * (2 / 3.0)), "count of " + v);
        }
        for (int i = 0; i < 1000; i++) {
            double d = src.next(1);
            assertTrue(d == 10 || d == 20, "worker 1 got " + d); // never the cancelled 99
        }
        assertEquals(2, src.exhaustedWorkers());
        assertEquals(n + 1000 - 2, src.extraDurations());
    }

    @Test
    void bootstrapIsDeterministicForASeedAndIndependentOfAskingOrder() {
        TraceDurations a = new TraceDurations(log(), ExhaustionMode.BOOTSTRAP, 7);
        double[] a0 = take(a, 0, 200);
        double[] a1 = take(a, 1, 200);

        TraceDurations b = new TraceDurations(log(), ExhaustionMode.BOOTSTRAP, 7);
        double[] b1 = new double[200];
        double[] b0 = new double[200];
        for (int i = 0; i < 200; i++) { // interleaved, worker 1 first
            b1[i] = b.next(1);
            b0[i] = b.next(0);
        }
        assertArrayEquals(a0, b0);
        assertArrayEquals(a1, b1);

        TraceDurations c = new TraceDurations(log(), ExhaustionMode.BOOTSTRAP, 8);
        assertFalse(Arrays.equals(a0, take(c, 0, 200)), "a different seed should give different draws");
        double[] cycled = take(new TraceDurations(log(), ExhaustionMode.CYCLE, 7), 0, 200);
        assertFalse(Arrays.equals(a0, cycled), "bootstrap should not just cycle");
    }

    @Test
    void stopThrowsNamingTheWorkerAndKeepsThrowing() {
        TraceDurations src = new TraceDurations(log(), ExhaustionMode.STOP, 1);
        assertArrayEquals(new double[] {10, 20}, take(src, 1, 2));
        ExhaustedException e = assertThrows(ExhaustedException.class, () -> src.next(1));
        assertTrue(e.getMessage().contains("w1"), e.getMessage());
        assertThrows(ExhaustedException.class, () -> src.next(1));
        assertEquals(2, src.calls(1));
        // other workers are unaffected
        assertArrayEquals(new double[] {1, 2, 3}, take(src, 0, 3));
        assertEquals(1, src.exhaustedWorkers());
        assertEquals(0, src.extraDurations());
        assertTrue(src.exhausted(1));
        assertFalse(src.exhausted(0));
    }

    @Test
    void workerWithoutDurationsIsExhaustedInEveryMode() {
        for (ExhaustionMode mode : ExhaustionMode.values()) {
            TraceDurations src = new TraceDurations(log(), mode, 1);
            ExhaustedException e = assertThrows(ExhaustedException.class, () -> src.next(2), mode.name());
            assertTrue(e.getMessage().contains("w2"), e.getMessage());
        }
        assertThrows(IndexOutOfBoundsException.class, () -> new TraceDurations(log(), ExhaustionMode.CYCLE, 1).next(3));
    }
}
