package io.ata.lab.timinglog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.timinglog.TimingRecord.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimingLogTest {

    private static TimingRecord rec(String w, double d, Long ts, Status s) {
        return new TimingRecord(w, d, null, null, ts, s);
    }

    @Test
    void workersInOrderOfFirstAppearanceAndFileOrderWithoutTimestamps() {
        TimingLog log = TimingLog.of(List.of(
                rec("b", 5, 30L, null), rec("a", 1, null, null), rec("b", 4, 10L, null), rec("a", 2, 5L, null)));
        assertEquals(2, log.workerCount());
        assertEquals("b", log.workerId(0));
        assertEquals("a", log.workerId(1));
        assertEquals(1, log.indexOf("a"));
        assertEquals(-1, log.indexOf("c"));
        // one record has no timestamp: file order is kept
        assertArrayEquals(new double[] {5, 4}, log.durations(0));
        assertArrayEquals(new double[] {1, 2}, log.durations(1));
    }

    @Test
    void sortedStablyByTimestampWhenEveryRecordHasOne() {
        TimingLog log = TimingLog.of(List.of(
                rec("b", 5, 30L, null),
                rec("a", 1, 50L, null),
                rec("b", 4, 10L, null),
                rec("a", 2, 5L, null),
                rec("b", 6, 10L, null),
                rec("b", 7, 20L, Status.CANCELLED),
                rec("b", 8, -1L, Status.LATE)));
        assertEquals(List.of("b", "a"), log.workerIds()); // indices still follow first appearance
        assertArrayEquals(new double[] {8, 4, 6, 5}, log.durations(0)); // 4 before 6: equal stamps keep file order
        assertArrayEquals(new double[] {2, 1}, log.durations(1));
        assertEquals(4.0, log.duration(0, 1));
    }

    @Test
    void cancelledRecordsAreCountedButNotUsed() {
        TimingLog log = TimingLog.of(List.of(
                rec("w1", 10, null, Status.COMPLETED),
                rec("w1", 99, null, Status.CANCELLED),
                rec("w1", 20, null, Status.LATE),
                rec("w2", 7, null, Status.CANCELLED),
                rec("w3", 3, null, null)));
        assertEquals(5, log.recordCount());
        assertEquals(2, log.cancelledCount());
        assertEquals(3, log.workerCount());
        assertArrayEquals(new double[] {10, 20}, log.durations(0));
        assertEquals(0, log.durationCount(1));
        double[] m = log.means();
        assertEquals(15, m[0]);
        assertTrue(Double.isNaN(m[1]));
        assertEquals(3, m[2]);
        assertArrayEquals(new double[] {10, 20, 3}, log.allDurations());
    }

    @Test
    void isImmutable() {
        TimingLog log = TimingLog.of(List.of(rec("w1", 1, null, null)));
        log.durations(0)[0] = 42;
        log.allDurations()[0] = 42;
        assertEquals(1, log.duration(0, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> log.duration(0, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> log.durations(1));
    }

    @Test
    void noUsableDurationIsAnError() {
        assertThrows(IllegalArgumentException.class, () -> TimingLog.of(List.of()));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> TimingLog.of(List.of(rec("w1", 1, null, Status.CANCELLED))));
        assertTrue(e.getMessage().contains("no usable duration"), e.getMessage());
    }
}
