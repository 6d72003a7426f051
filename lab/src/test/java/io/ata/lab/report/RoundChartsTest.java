package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.timinglog.TimingRecord;
import io.ata.lab.timinglog.TimingRecord.Status;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.LookupPaintScale;
import org.jfree.data.xy.XYDataset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoundChartsTest {
    private static TimingRecord task(String worker, long round, double ms, Status status) {
        return new TimingRecord(worker, ms, round, worker + "/" + round, 1000L * round, status);
    }

    /** Round 1: agent-10 ran two tasks, agent-2 one; round 2: agent-2 one (cancelled). */
    private static LiveRounds job() {
        return new LiveRounds(
                "ata-auto",
                new double[] {10, 30},
                List.of(
                        task("agent-10", 1, 5, Status.COMPLETED),
                        task("agent-10", 1, 7, Status.COMPLETED),
                        task("agent-2", 1, 4, Status.COMPLETED),
                        task("agent-2", 2, 2, Status.CANCELLED)));
    }

    @Test
    void workersAreInNaturalOrderOfTheirNames() {
        assertEquals(List.of("agent-2", "agent-10"), RoundCharts.workersInOrder(List.of(job())));
        assertEquals(
                List.of("a", "a-1", "a-9", "a-10", "b-1"),
                new ArrayList<>(List.of("b-1", "a-10", "a-9", "a", "a-1"))
                        .stream().sorted(RoundCharts::naturalOrder).toList());
    }

    @Test
    void theAllocationCountsEveryTaskOfEveryWorkerAndRound() {
        double[][] xyz = RoundCharts.tasksPerWorkerAndRound(job(), List.of("agent-2", "agent-10"));
        // cells row by row, the first worker (agent-2) drawn on top (y = 1)
        assertArrayEquals(new double[] {1, 2, 1, 2}, xyz[0]);
        assertArrayEquals(new double[] {1, 1, 0, 0}, xyz[1]);
        assertArrayEquals(new double[] {1, 1, 2, 0}, xyz[2]);
    }

    @Test
    void workerTimeAccumulatesOverRoundsInSeconds() {
        LineChart.Curve c = RoundCharts.cumulativeWorkerSeconds(job());
        assertArrayEquals(new double[] {1, 2}, c.x());
        assertArrayEquals(new double[] {0.016, 0.018}, c.y(), 1e-12);
    }

    @Test
    void roundTimesAreARollingMedianThatASpikeDoesNotMove() {
        LineChart.Curve c = RoundCharts.rollingMedian("p", new double[] {10, 12, 900, 11, 13, 40, 41}, 3);
        assertArrayEquals(new double[] {3, 4, 5, 6, 7}, c.x(), "every round from the window's end on");
        assertArrayEquals(
                new double[] {12, 12, 13, 13, 40}, c.y(), "the 900 ms spike never shows; the rise to 40 does");
        LineChart.Curve even = RoundCharts.rollingMedian("p", new double[] {1, 3, 5, 7}, 2);
        assertArrayEquals(new double[] {2, 4, 6}, even.y());
        assertEquals(0, RoundCharts.rollingMedian("p", new double[] {1}, 2).x().length, "fewer rounds than the window");
    }

    @Test
    void theRoundTimePanelIsTheRollingMedianOfATenthOfTheRoundsFromZero() {
        double[] times = new double[150];
        Arrays.fill(times, 100);
        times[70] = 5_000; // one stretched round
        LiveRounds job = new LiveRounds("uta", times, List.of(task("agent-1", 1, 5, Status.COMPLETED)));
        assertEquals(15, RoundCharts.medianWindow(List.of(job)));
        XYPlot roundTime = RoundCharts.roundsPanels(List.of(job)).get(0).getXYPlot();
        assertEquals(
                "round time (ms), median of the last 15 rounds",
                roundTime.getRangeAxis().getLabel());
        assertEquals(0.0, roundTime.getRangeAxis().getLowerBound(), "the axis starts at zero");
        XYDataset data = roundTime.getDataset();
        assertEquals(150 - 15 + 1, data.getItemCount(0));
        for (int i = 0; i < data.getItemCount(0); i++) {
            assertEquals(100.0, data.getYValue(0, i), "round " + data.getXValue(0, i));
        }
    }

    @Test
    void theAllocationRoundAxisRunsOverTheRoundsRunAndOneTaskStandsOutFromNone() {
        List<JFreeChart> panels = RoundCharts.allocationPanels(List.of(job(), job()));
        assertEquals(2, panels.size());
        for (JFreeChart panel : panels) {
            ValueAxis rounds = panel.getXYPlot().getDomainAxis();
            assertEquals(0.5, rounds.getLowerBound(), "the first round's cell from its left edge");
            assertEquals(2.5, rounds.getUpperBound(), "to the last round's right edge, no margin");
        }
        // job(): at most two tasks in a cell
        LookupPaintScale scale = RoundCharts.tasksScale(2);
        assertEquals(Color.WHITE, scale.getPaint(0));
        assertEquals(RoundCharts.ONE_TASK, scale.getPaint(1));
        assertEquals(RoundCharts.MOST_TASKS, scale.getPaint(2));
        // one task reads against white: a WCAG contrast of at least 2:1 (the old shade had 1.4:1);
        // on GTA's scale up to 9 tasks, a learning policy's one and two tasks still differ
        LookupPaintScale upToNine = RoundCharts.tasksScale(9);
        assertTrue(contrast(Color.WHITE, (Color) upToNine.getPaint(1)) >= 2, "one task's shade is too faint");
        assertTrue(contrast((Color) upToNine.getPaint(1), (Color) upToNine.getPaint(2)) >= 1.5, "1 and 2 look alike");
        for (int n = 1; n < 9; n++) {
            assertTrue(
                    luminance((Color) upToNine.getPaint(n + 1)) < luminance((Color) upToNine.getPaint(n)),
                    "darker with each task more: " + n);
        }
    }

    /** WCAG's contrast ratio of two colours, from 1 (the same) to 21 (black on white). */
    private static double contrast(Color a, Color b) {
        double la = luminance(a);
        double lb = luminance(b);
        return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    }

    private static double luminance(Color c) {
        double[] rgb = {c.getRed() / 255.0, c.getGreen() / 255.0, c.getBlue() / 255.0};
        for (int i = 0; i < 3; i++) {
            rgb[i] = rgb[i] <= 0.03928 ? rgb[i] / 12.92 : Math.pow((rgb[i] + 0.055) / 1.055, 2.4);
        }
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    }

    @Test
    void bothChartsAreDrawn(@TempDir Path dir) throws IOException {
        RoundCharts.writeRounds(dir.resolve(RoundCharts.ROUNDS_FILE), List.of(job()), "header");
        RoundCharts.writeAllocation(dir.resolve(RoundCharts.ALLOCATION_FILE), List.of(job(), job()), "header");
        BufferedImage rounds = ImageIO.read(dir.resolve(RoundCharts.ROUNDS_FILE).toFile());
        BufferedImage allocation =
                ImageIO.read(dir.resolve(RoundCharts.ALLOCATION_FILE).toFile());
        assertNotNull(rounds);
        assertNotNull(allocation);
        assertEquals(600, allocation.getHeight(), "one row of 300 pixels per policy");
    }
}
