package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class PolicySeriesTest {

    @Test
    void meanAndSampleSdOverSeedsAtEachRound() {
        PolicySeries s = PolicySeries.of(List.of(RunResults.run("p", 0, 50, null), RunResults.run("p", 2, 50, null)));
        assertEquals(50, s.size());
        assertEquals(2, s.seeds());
        assertEquals(11.0, s.mean(SeriesMetric.AVG_ROUND_TIME)[10], 1e-12); // (10 + 12) / 2
        assertEquals(Math.sqrt(2), s.sd(SeriesMetric.AVG_ROUND_TIME)[10], 1e-12);
        assertEquals(0.0, s.sd(SeriesMetric.OBJECTIVE)[10], 1e-12);
    }

    @Test
    void keepsOnlyRoundsEverySeedReached() {
        PolicySeries s = PolicySeries.of(List.of(RunResults.run("p", 0, 80, null), RunResults.run("p", 1, 30, "stop")));
        assertEquals(30, s.size());
        assertEquals(30, s.rounds()[s.size() - 1]);
    }

    @Test
    void oneSeedHasZeroSpread() {
        PolicySeries s = PolicySeries.of(List.of(RunResults.run("p", 3, 20, null)));
        assertEquals(0.0, s.sd(SeriesMetric.RUNTIME)[5]);
    }
}
