package io.ata.lab.sim;

import static io.ata.lab.sim.SimulationTestSupport.linear;
import static io.ata.lab.sim.SimulationTestSupport.only;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.ConstantConvention;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The goals beyond the paper, at n = 51 (the n = 459 figures are in the README). */
class BeyondThePaperTest {

    @Test
    void noConstantAtaEndsWithinFivePercentOfTheOracleAndReachesItsAllocation() {
        Map<String, List<RunResult>> r = linear(51, 750_000, "fta,ata-auto", ConstantConvention.PAPER, 5, 1, false);
        RunResult fta = only(r, "fta");
        RunResult auto = only(r, "ata-auto");
        double excess = auto.runtime() / fta.runtime() - 1;
        assertTrue(excess < 0.05, "ata-auto runtime exceeds FTA's by " + excess);
        assertTrue(
                auto.firstFtaRound() > 0 && auto.firstFtaRound() < 50_000,
                "reaches FTA's allocation early, at round " + auto.firstFtaRound());
    }

    @Test
    void expectedRoundTimePolicyBeatsTheProxyOptimumWithoutExtraWork() {
        Map<String, List<RunResult>> r = linear(51, 300_000, "fta,ata-ert", ConstantConvention.PAPER, 5, 1, false);
        RunResult ert = only(r, "ata-ert");
        assertTrue(ert.tailRoundTime() <= 745, "long-run mean round time " + ert.tailRoundTime());
        assertTrue(
                ert.tailBusyTime() <= only(r, "fta").tailBusyTime(),
                "busy " + ert.tailBusyTime() + " vs FTA " + only(r, "fta").tailBusyTime());
    }

    @Test
    void hedgingIsAKnobFromAtaToGreedyAndASmallHedgeDominatesAta() {
        String[] knob = {"ata-auto", "ata-hedge:1", "ata-hedge:2", "ata-hedge:4", "ata-hedge:16", "gta"};
        Map<String, List<RunResult>> r =
                linear(51, 100_000, String.join(",", knob), ConstantConvention.PAPER, 5, 1, false);
        for (int i = 1; i < knob.length; i++) {
            assertTrue(
                    only(r, knob[i]).tailRoundTime() < only(r, knob[i - 1]).tailRoundTime(),
                    knob[i] + " rounds are faster than " + knob[i - 1]);
        }
        // Cutting the slowest queued task saves work: one or two extra tasks cost less than none.
        RunResult ata = only(r, "ata-auto");
        RunResult hedge2 = only(r, "ata-hedge:2");
        assertTrue(hedge2.tailBusyTime() < ata.tailBusyTime(), "hedge:2 busy " + hedge2.tailBusyTime());
        assertTrue(hedge2.tailRoundTime() < 0.85 * ata.tailRoundTime(), "hedge:2 round " + hedge2.tailRoundTime());
        // Past that, speed is bought with worker time, up to greedy collection.
        for (String[] pair : new String[][] {{"ata-hedge:4", "ata-hedge:16"}, {"ata-hedge:16", "gta"}}) {
            assertTrue(only(r, pair[1]).tailBusyTime() > only(r, pair[0]).tailBusyTime(), pair[1] + " costs more");
        }
    }
}
