package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class MembershipDelayTest {
    private static final long T = 1_000_000;
    private final MembershipDelay delay = new MembershipDelay(1_000);

    @Test
    void isZeroBeforeAnyHeartbeat() {
        assertEquals(0, delay.delayMs(T));
    }

    @Test
    void heartbeatsAllLateByTheSameLagReadAsThatLagOnceTheirWindowEnds() {
        delay.stored(T, T + 12_000);
        delay.stored(T + 500, T + 12_400);
        assertEquals(0, delay.delayMs(T + 12_500), "the window has not ended");
        assertEquals(11_900, delay.delayMs(T + 13_000), "the smallest of the window");
    }

    @Test
    void oneWorkerWhoseClockRunsBehindDoesNotMakeEveryoneLate() {
        delay.stored(T - 30_000, T); // its host's clock is 30 s behind
        delay.stored(T + 100, T + 120);
        delay.stored(T + 200, T + 210);
        assertEquals(10, delay.delayMs(T + 1_000));
    }

    @Test
    void aHeartbeatStampedAheadOfTheClockArrivedAtOnce() {
        delay.stored(T + 5_000, T);
        assertEquals(0, delay.delayMs(T + 1_000));
    }

    @Test
    void whenHeartbeatsStopTheLastMeasuredDelayStays() {
        delay.stored(T, T + 8_000);
        delay.stored(T + 2_000, T + 10_000); // a new window: the first one settles at 8 s
        assertEquals(8_000, delay.delayMs(T + 10_500));
        assertEquals(8_000, delay.delayMs(T + 60_000), "the last window, not the time since");
    }

    @Test
    void aCaughtUpPathReadsPromptAgainAfterOneWindow() {
        delay.stored(T, T + 12_000);
        delay.stored(T + 13_000, T + 13_010); // caught up
        assertEquals(10, delay.delayMs(T + 14_010));
    }

    @Test
    void aWindowMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new MembershipDelay(0));
    }
}
