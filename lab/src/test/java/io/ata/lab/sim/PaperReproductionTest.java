package io.ata.lab.sim;

import static io.ata.lab.sim.SimulationTestSupport.assertWithin;
import static io.ata.lab.sim.SimulationTestSupport.linear;
import static io.ata.lab.sim.SimulationTestSupport.only;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.ConstantConvention;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reference values and the published figure of spec section 6. */
class PaperReproductionTest {

    @Test
    void referenceValuesOfTheLinearModelWithinTwoPercent() {
        Map<String, List<RunResult>> r = linear(51, 200_000, "fta,gta,uta", ConstantConvention.PAPER, 5, 1, false);
        assertWithin(780, only(r, "fta").meanRoundTime(), 0.02, "FTA mean round time");
        assertWithin(4000, only(r, "fta").meanBusyTime(), 0.02, "FTA mean busy time");
        assertWithin(522, only(r, "fta").ftaProxyLoss(), 1e-9, "FTA proxy value");
        assertWithin(493, only(r, "gta").meanRoundTime(), 0.02, "GTA mean round time");
        assertWithin(25_150, only(r, "gta").meanBusyTime(), 0.02, "GTA mean busy time");
        assertWithin(51 * only(r, "gta").meanRoundTime(), only(r, "gta").meanBusyTime(), 1e-9, "GTA busy = n x round");
        assertWithin(4_770, only(r, "uta").meanRoundTime(), 0.02, "UTA mean round time");
        assertWithin(34_700, only(r, "uta").meanBusyTime(), 0.02, "UTA mean busy time");
    }

    @Test
    void publishedCifarFigureWithExperimentsConstantsWithinFivePercent() {
        Map<String, List<RunResult>> r =
                linear(51, 750_000, "gta,fta,ata-empirical,ata,uta", ConstantConvention.EXPERIMENTS, 5, 1, false);
        assertWithin(0.37e9, only(r, "gta").runtime(), 0.05, "GTA runtime");
        assertWithin(0.57e9, only(r, "fta").runtime(), 0.05, "FTA runtime");
        assertWithin(1.17e9, only(r, "ata-empirical").runtime(), 0.05, "ATA-Empirical runtime");
        assertWithin(1.58e9, only(r, "ata").runtime(), 0.05, "ATA runtime");
        assertWithin(3.57e9, only(r, "uta").runtime(), 0.05, "UTA runtime");
        assertWithin(0.30e10, only(r, "fta").totalWorkerTime(), 0.05, "FTA worker time");
        assertWithin(0.52e10, only(r, "ata-empirical").totalWorkerTime(), 0.05, "ATA-Empirical worker time");
        assertWithin(0.63e10, only(r, "ata").totalWorkerTime(), 0.05, "ATA worker time");
        assertWithin(1.88e10, only(r, "gta").totalWorkerTime(), 0.05, "GTA worker time");
        assertWithin(2.59e10, only(r, "uta").totalWorkerTime(), 0.05, "UTA worker time");
        // the published orderings
        String[] byRuntime = {"gta", "fta", "ata-empirical", "ata", "uta"};
        for (int i = 1; i < byRuntime.length; i++) {
            assertTrue(
                    only(r, byRuntime[i - 1]).runtime() < only(r, byRuntime[i]).runtime(), byRuntime[i - 1]);
        }
        String[] byWork = {"fta", "ata-empirical", "ata", "gta", "uta"};
        for (int i = 1; i < byWork.length; i++) {
            assertTrue(
                    only(r, byWork[i - 1]).totalWorkerTime()
                            < only(r, byWork[i]).totalWorkerTime(),
                    byWork[i - 1]);
        }
    }
}
