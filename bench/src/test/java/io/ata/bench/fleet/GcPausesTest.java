package io.ata.bench.fleet;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class GcPausesTest {
    @Test
    void aPauseCountsOnlyWhereItOverlapsTheInterval() {
        GcPauses.Pause pause = new GcPauses.Pause(10_000_000, 30_000_000); // 10 to 30 ms
        assertEquals(20, pause.ms(), 1e-9);
        assertEquals(5, pause.overlapMs(25_000_000, 40_000_000), 1e-9, "its last 5 ms");
        assertEquals(20, pause.overlapMs(0, 100_000_000), 1e-9, "all of it");
        assertEquals(0, pause.overlapMs(30_000_001, 50_000_000), 1e-9, "after it");
        GcPauses.Pause other = new GcPauses.Pause(40_000_000, 41_000_000);
        assertEquals(7, GcPauses.overlapMs(List.of(pause, other), 24_000_000, 41_000_000), 1e-9);
        assertEquals(
                List.of(new GcPauses.Pause(24_000_000, 30_000_000), new GcPauses.Pause(40_000_000, 41_000_000)),
                GcPauses.clipped(List.of(pause, other), 24_000_000, 45_000_000),
                "cut to the interval");
        assertEquals(List.of(), GcPauses.clipped(List.of(pause, other), 31_000_000, 39_000_000), "none inside");
    }

    @Test
    void theCollectionsOfThisJvmAreSeenWhereTheyHappened() {
        try (GcPauses pauses = new GcPauses()) {
            long[][] calls = new long[3][];
            for (int i = 0; i < calls.length; i++) {
                long before = System.nanoTime();
                System.gc(); // a full, stop-the-world collection under the JVM's default collector
                calls[i] = new long[] {before, System.nanoTime()};
                // the JVM tells its collections on a thread of its own, a moment later (the first
                // one tens of ms late): each is waited for, as a run's pauses come apart, so that
                // some notice comes promptly and sets the clock
                int count = i + 1;
                await("the collections' notices")
                        .atMost(Duration.ofSeconds(30))
                        .until(() -> pauses.between(Long.MIN_VALUE, Long.MAX_VALUE), list -> list.size() >= count);
            }
            long slack = 5_000_000; // the JVM's times are to the ms, and the clocks matched to a few
            for (long[] call : calls) {
                List<GcPauses.Pause> within = pauses.between(call[0], call[1]).stream()
                        .filter(p -> p.startNanos() >= call[0] - slack && p.endNanos() <= call[1] + slack)
                        .toList();
                assertEquals(
                        1,
                        within.size(),
                        "the collection of the call from " + call[0] + " to " + call[1] + " where it happened: "
                                + pauses.between(Long.MIN_VALUE, Long.MAX_VALUE));
                assertTrue(within.get(0).ms() >= 0);
            }
            long now = System.nanoTime();
            assertTrue(
                    pauses.between(now + 60_000_000_000L, now + 61_000_000_000L).isEmpty(), "none ahead");
        }
    }
}
