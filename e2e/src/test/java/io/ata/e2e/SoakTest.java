package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.bench.Soak;
import io.ata.bench.SoakEvents;
import io.ata.bench.SoakReport;
import io.ata.bench.SoakResult;
import io.ata.testsupport.EndToEnd;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ata bench-soak}, short: the soak's own code for 50 s, in which every disturbance comes at
 * least once (floods of forged results, bad records on every topic, honest outliers, slow and
 * silent HTTP clients and a crowd, restarts of the trainer, an agent and the broker). Every round
 * still closes: no permanent stall, no gap between two closes beyond the bound, the trainer and the
 * agents still run, and every forged record that met an open round is dead-lettered (within 5 s:
 * the bench reports the 1 s goal, a loaded build machine should not fail on it).
 */
@EndToEnd
class SoakTest {
    private static final long LETTER_BOUND_MS = 5000;

    @Test
    void everyRoundClosesUnderEveryDisturbanceAtOnce() throws Exception {
        SoakResult result = new Soak(new Soak.Settings(Duration.ofSeconds(50), 7, 3)).run(seconds -> {});
        SoakReport report = SoakReport.of(result);
        String table = report.table();

        for (String kind :
                List.of("flood", "bad-records", "crowd", "restart-trainer", "restart-agent", "restart-broker")) {
            assertTrue(result.events().stream().anyMatch(e -> e.kind().equals(kind)), "a " + kind + " came\n" + table);
        }
        List<SoakEvents.Event> failed = result.events().stream()
                .filter(e -> e.kind().endsWith("-failed"))
                .toList();
        assertEquals(List.of(), failed, "every disturbance was delivered\n" + table);
        assertTrue(result.outliers() > 0 && result.clipped() > 0, "outliers computed and clipped\n" + table);
        assertTrue(result.slowClients().cut() > 0, "slow clients were cut\n" + table);

        assertEquals(0, report.permanentStalls(), "no permanent stall\n" + table);
        assertTrue(
                report.longestGap().ms() <= report.gapBoundMs(),
                "longest gap " + report.longestGap().ms() + " ms, bound " + report.gapBoundMs() + " ms\n" + table);
        assertTrue(result.trainerDown().isEmpty(), "the trainer runs\n" + table);
        assertEquals(List.of(), result.agentsDown(), "every agent runs\n" + table);

        List<SoakReport.Forged> metOpen = report.forgedJudged();
        assertTrue(!metOpen.isEmpty(), "forged records met an open round, or were lettered\n" + table);
        List<String> unlettered = metOpen.stream()
                .filter(f -> f.letterMs().isEmpty() || f.letterMs().get() > LETTER_BOUND_MS)
                .map(f -> f.record().what() + " of round " + f.record().round() + " at "
                        + f.record().topic() + "-" + f.record().partition() + "@"
                        + f.record().offset()
                        + " (its round closed "
                        + f.closedAfterMs().map(ms -> ms + " ms after it").orElse("never") + "; letter "
                        + f.letterMs().map(ms -> "after " + ms + " ms").orElse("none") + ")")
                .toList();
        assertEquals(
                List.of(),
                unlettered,
                "every forged record that met an open round or was lettered was lettered within " + LETTER_BOUND_MS
                        + " ms\n" + table);
    }
}
