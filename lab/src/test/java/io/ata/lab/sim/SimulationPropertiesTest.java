package io.ata.lab.sim;

import static io.ata.lab.sim.SimulationTestSupport.linear;
import static io.ata.lab.sim.SimulationTestSupport.only;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.ConstantConvention;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulationPropertiesTest {
    private static final String LEARNERS = "ata-auto,ata-empirical,adaptive-proportional,uta,ata-hedge:2,ata-ert";

    @Test
    void aFixedSeedGivesIdenticalRunsAndAnotherSeedDoesNot() {
        Map<String, List<RunResult>> a = linear(17, 20_000, LEARNERS, ConstantConvention.EXPERIMENTS, 9, 1, true);
        Map<String, List<RunResult>> b = linear(17, 20_000, LEARNERS, ConstantConvention.EXPERIMENTS, 9, 1, true);
        Map<String, List<RunResult>> c = linear(17, 20_000, LEARNERS, ConstantConvention.EXPERIMENTS, 10, 1, true);
        for (String policy : a.keySet()) {
            RunResult x = only(a, policy);
            RunResult y = only(b, policy);
            assertEquals(x.runtime(), y.runtime(), 0, policy);
            assertEquals(x.totalWorkerTime(), y.totalWorkerTime(), 0, policy);
            assertArrayEquals(x.series().averageProxyRegret(), y.series().averageProxyRegret(), 0, policy);
            assertArrayEquals(x.series().objective(), y.series().objective(), 0, policy);
            assertNotEquals(x.runtime(), only(c, policy).runtime(), policy);
        }
    }

    @Test
    void allPoliciesShareOneSgdTrajectoryPerSeedAndItConverges() {
        Map<String, List<RunResult>> r = linear(17, 50_000, "fta,gta,ata-auto", ConstantConvention.PAPER, 3, 1, true);
        double[] objective = only(r, "fta").series().objective();
        assertArrayEquals(objective, only(r, "gta").series().objective(), 0);
        assertArrayEquals(objective, only(r, "ata-auto").series().objective(), 0);
        assertTrue(objective[objective.length - 1] < 0.5 * objective[0], "SGD makes progress");
    }

    @Test
    void averagedProxyRegretOfAtaShrinksAsRoundsGrow() {
        RunResult ata = only(
                linear(51, 400_000, "ata-empirical", ConstantConvention.EXPERIMENTS, 5, 1, false), "ata-empirical");
        RunResult.Series s = ata.series();
        double at10k = valueAt(s, 10_000);
        double at100k = valueAt(s, 100_000);
        double atEnd = s.averageProxyRegret()[s.size() - 1];
        assertTrue(at10k > at100k && at100k > atEnd, at10k + " > " + at100k + " > " + atEnd);
        assertTrue(atEnd < 0.6 * at10k);
    }

    @Test
    void severalSeedsGiveSpread() {
        Map<String, List<RunResult>> r = linear(17, 5_000, "ata-auto", ConstantConvention.PAPER, 1, 4, false);
        PolicySummary summary = PolicySummary.of(r.get("ata-auto"));
        assertEquals(4, summary.seeds());
        assertTrue(summary.runtime().sd() > 0);
        assertTrue(summary.runtime().mean() > 0);
    }

    private static double valueAt(RunResult.Series s, long round) {
        int i = SeriesSampler.indexOf(s.rounds(), round);
        if (i < 0) {
            // the nearest sampled round at or after
            for (i = 0; i < s.size() && s.rounds()[i] < round; i++) {
                // scan
            }
        }
        return s.averageProxyRegret()[i];
    }
}
