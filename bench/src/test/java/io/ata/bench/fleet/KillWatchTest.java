package io.ata.bench.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KillWatchTest {

    @Test
    void roundsClosedOnAssignmentsSentBeforeTheKillDoNotCountAsRestored() {
        KillWatch watch = new KillWatch(2, 2);
        watch.closed(0, 9, System.nanoTime());
        watch.closed(1, 4, System.nanoTime());
        watch.killing();

        // the open round and the one planned ahead: both could close on the dead broker's plan
        watch.closed(0, 10, System.nanoTime());
        watch.closed(0, 11, System.nanoTime());
        assertEquals(0, watch.progressed(0, 2));
        assertTrue(Double.isNaN(watch.firstSeconds(0, 2)));

        watch.closed(0, 12, System.nanoTime()); // planned by a live broker after the kill
        assertEquals(1, watch.progressed(0, 2));
        assertTrue(watch.firstSeconds(0, 2) >= 0);
        assertTrue(Double.isNaN(watch.allSeconds(0, 2)), "job 1 has not yet");
        assertEquals(1, watch.progressed(0, 1), "job 0 alone");

        watch.closed(1, 7, System.nanoTime());
        assertEquals(2, watch.progressed(0, 2));
        assertTrue(watch.allSeconds(0, 2) >= watch.firstSeconds(0, 2));
    }

    @Test
    void closesBeforeTheKillNeverCount() {
        KillWatch watch = new KillWatch(1, 2);
        for (long round = 1; round <= 20; round++) {
            watch.closed(0, round, System.nanoTime());
        }
        assertEquals(0, watch.progressed(0, 1));
    }
}
