package io.ata.lab.timinglog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.lab.timinglog.TimingRecord.Status;
import org.junit.jupiter.api.Test;

/** The checks every line of a timing log goes through, in either format. */
class TimingFieldsTest {

    private static String reason(TimingFields fields) {
        return assertThrows(InvalidLineException.class, fields::toRecord).getMessage();
    }

    @Test
    void fieldsBecomeARecord() {
        assertEquals(
                new TimingRecord("w1", 2.5, 3L, "t", 40L, Status.LATE),
                new TimingFields("w1", " 2.5 ", "3", "t", " 40", "Late").toRecord());
        assertEquals(
                new TimingRecord("w1", 0, null, null, null, Status.COMPLETED),
                new TimingFields("w1", "0", null, null, " ", null).toRecord());
    }

    @Test
    void eachBadFieldIsNamedInTheReason() {
        assertEquals("worker is missing or empty", reason(new TimingFields(" ", "1", null, null, null, null)));
        assertEquals("duration is missing or empty", reason(new TimingFields("w", null, null, null, null, null)));
        assertEquals("duration 'x' is not a number", reason(new TimingFields("w", "x", null, null, null, null)));
        assertEquals(
                "duration 'Infinity' is not a finite number",
                reason(new TimingFields("w", "Infinity", null, null, null, null)));
        assertEquals("duration -2 is negative", reason(new TimingFields("w", "-2", null, null, null, null)));
        assertEquals("round '1.5' is not an integer", reason(new TimingFields("w", "1", "1.5", null, null, null)));
        assertEquals("timestamp 'now' is not an integer", reason(new TimingFields("w", "1", null, null, "now", null)));
        assertEquals(
                "status 'done' is not one of completed, late, cancelled",
                reason(new TimingFields("w", "1", null, null, null, "done")));
    }
}
