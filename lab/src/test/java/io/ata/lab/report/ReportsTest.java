package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.lab.sim.RunResult;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportsTest {

    private static RunInfo info() {
        return new RunInfo(
                "ata simulate --test",
                "test run",
                Map.of("workers", "4"),
                ConstantConvention.PAPER,
                null,
                List.of("a note"),
                List.of("1: constant(1.0)"),
                RunInfo.ABSTRACT_TIME_UNIT);
    }

    @Test
    void chartsSurviveUnknownValues(@TempDir Path dir) throws IOException {
        Map<String, List<RunResult>> results = new LinkedHashMap<>();
        results.put("fta", List.of(RunResults.withoutObjective(RunResults.run("fta", 1, 500, null))));
        results.put("ata", List.of(RunResults.run("ata", 1, 500, null), RunResults.run("ata", 2, 500, null)));
        results.put("uta", List.of(RunResults.withoutObjective(RunResults.run("uta", 1, 0, "no durations"))));

        List<Path> written = Reports.write(dir, results, info(), ZonedDateTime.now(), Duration.ofSeconds(3), true);

        assertEquals(4 + Reports.chartFiles().size(), written.size());
        for (String chart : Reports.chartFiles()) {
            BufferedImage image = ImageIO.read(dir.resolve(chart).toFile());
            assertNotNull(image, chart);
        }
        String summary = Files.readString(dir.resolve("summary.csv"));
        assertTrue(summary.contains("ata,4,2,500,"), summary);
        assertTrue(summary.contains(",paper,ata described"), summary);
        String runFile = Files.readString(dir.resolve("run.txt"));
        assertTrue(runFile.contains("  - a note"), runFile);
        assertTrue(runFile.contains("wall time:  3.0 s"), runFile);
    }

    @Test
    void theTimeUnitReachesEveryTimeAxis() {
        List<PolicySeries> series = List.of(PolicySeries.of(List.of(RunResults.run("ata", 1, 500, null))));
        PolicyColors colors = new PolicyColors(List.of("ata"));
        for (PaperPanel panel : PaperPanel.values()) {
            var plot = panel.chart(series, colors, "ms").getXYPlot();
            String labels = plot.getDomainAxis().getLabel() + " | "
                    + plot.getRangeAxis().getLabel();
            assertFalse(labels.contains("time units"), labels);
            assertTrue(labels.contains("(ms"), "every panel has a time axis: " + panel + ": " + labels);
        }
        var pareto = ParetoChart.create(
                        "t",
                        ParetoFront.timeVsCost(
                                Reports.summaries(Map.of("ata", List.of(RunResults.run("ata", 1, 500, null))))),
                        colors,
                        "ms",
                        800,
                        600)
                .getXYPlot();
        assertTrue(
                pareto.getDomainAxis().getLabel().contains("(ms"),
                pareto.getDomainAxis().getLabel());
        assertTrue(
                pareto.getRangeAxis().getLabel().contains("(ms"),
                pareto.getRangeAxis().getLabel());
    }

    @Test
    void oracleDescriptionsCarryTheHindsightNote() {
        RunInfo replay = new RunInfo(
                "ata replay",
                "t",
                Map.of(),
                ConstantConvention.EXPERIMENTS,
                "the log's means (hindsight oracle)",
                List.of(),
                List.of(),
                RunInfo.ABSTRACT_TIME_UNIT);
        assertEquals("oracle; true means: the log's means (hindsight oracle)", replay.describe("fta", "oracle"));
        assertEquals("learns", replay.describe("ata", "learns"));
        assertEquals("experiments", replay.constantsOf("ata-empirical"));
        assertEquals("-", replay.constantsOf("ata-auto"));
        assertEquals("experiments", replay.constantsOf("ata-empirical@stale"), "a labelled run of the policy");
        assertEquals("-", replay.constantsOf("ata-auto@stale"));
    }

    @Test
    void numbersInRunFileAreShort() {
        assertEquals("0.0001", RunInfo.number(1e-4));
        assertEquals("386.256", RunInfo.number(386.25612));
        assertEquals("58", RunInfo.number(58.0));
    }
}
