package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.timinglog.TimingRecord;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.Layer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The learning-curve outputs of {@code ata demo} on a network: eval.csv, accuracy.png, summary and table. */
class LearningCurveReportsTest {
    // one evaluation a row: round, wall s, worker s, test loss, test accuracy
    private static final LearningCurve ATA =
            curve("ata-auto", "0 0.5 0 2.30 0.10", "10 4.25 3.5 0.9 0.7", "20 8.0 7.0 0.5 0.82");
    private static final LearningCurve GTA =
            curve("gta", "0 0.25 0 2.30 0.10", "10 3.0 9.5 0.95 0.69", "20 6.0 19.0 0.6 0.79");

    private static final List<AccuracyChart.Level> LEVELS =
            List.of(new AccuracyChart.Level(0.8, "target 80%"), new AccuracyChart.Level(0.7, "held for good 70%"));

    private static final List<LiveJobSummary> JOBS = List.of(
            new LiveJobSummary(
                    "ata-auto", "demo-ata-auto", 20, 8.5, 400, 380, 7000, 0, 160, 160, 0, 0, Double.NaN, "t-ata.csv"),
            new LiveJobSummary(
                    "gta", "demo-gta", 20, 6.5, 300, 290, 5000, 14_000, 500, 160, 200, 140, Double.NaN, "t-gta.csv"));

    @Test
    void curvesTellTheFinalAccuracyAndWhenTheTargetWasFirstReached() {
        assertEquals(0.82, ATA.finalAccuracy());
        assertEquals(0.5, ATA.finalLoss());
        assertEquals(8.0, ATA.wallSecondsTo(0.8));
        assertEquals(7.0, ATA.workerSecondsTo(0.8));
        assertEquals(4.25, ATA.wallSecondsTo(0.7), "the first evaluation at or above the target");
        assertTrue(Double.isNaN(GTA.wallSecondsTo(0.8)), "never reached");
        assertTrue(Double.isNaN(GTA.workerSecondsTo(0.8)));
        assertTrue(Double.isNaN(new LearningCurve("x", List.of()).finalAccuracy()));
    }

    @Test
    void aCurveHoldsAnAccuracyFromTheFirstEvaluationAfterWhichItNeverDropsBelow() {
        LearningCurve c = curve(
                "ata-auto",
                "0 0 0 2.3 0.10",
                "10 5 4 0.9 0.781", // a lucky evaluation: above 78% ...
                "20 10 8 0.8 0.779", // ... and below again
                "30 15 12 0.7 0.785",
                "40 20 16 0.6 0.80",
                "50 25 20 0.6 0.782");
        assertEquals(15.0, c.wallSecondsToHold(0.78), "from the third evaluation at or above 78% on");
        assertEquals(12.0, c.workerSecondsToHold(0.78));
        assertEquals(5.0, c.wallSecondsTo(0.78), "the first evaluation at or above 78%: the lucky one");
        assertTrue(Double.isNaN(c.wallSecondsToHold(0.8)), "reached 80% but dropped below again");
        assertEquals(20.0, c.wallSecondsTo(0.8));
        assertEquals(0.0, c.wallSecondsToHold(0.1), "held from the start");
        assertTrue(Double.isNaN(new LearningCurve("x", List.of()).wallSecondsToHold(0.5)));
    }

    @Test
    void evalCsvHasOneRowPerEvaluationThatParsesBack(@TempDir Path dir) throws IOException {
        Path file = dir.resolve(EvalCsv.FILE);
        EvalCsv.write(file, List.of(ATA, GTA));
        List<String> lines = Files.readAllLines(file);
        assertEquals("policy,round,wall_time_s,worker_time_s,test_loss,test_accuracy", lines.get(0));
        assertEquals(1 + 6, lines.size());
        List<LearningCurve> read = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(6, f.length, line);
            EvaluationPoint p = point(f, 1);
            if (read.isEmpty() || !read.get(read.size() - 1).policy().equals(f[0])) {
                read.add(new LearningCurve(f[0], List.of()));
            }
            LearningCurve last = read.remove(read.size() - 1);
            List<EvaluationPoint> points = new ArrayList<>(last.points());
            points.add(p);
            read.add(new LearningCurve(f[0], points));
        }
        assertEquals(List.of(ATA, GTA), read, "every value exactly as written");
    }

    @Test
    void summaryOfANetworkRunAddsTheAccuracyColumns(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("summary.csv");
        LiveSummaryCsv.write(file, 12, 8, JOBS, List.of(ATA, GTA), 0.7, 0.8);
        List<String> lines = Files.readAllLines(file);
        List<String> header = List.of(lines.get(0).split(","));
        assertEquals(LiveSummaryCsv.COLUMNS, header.subList(0, LiveSummaryCsv.COLUMNS.size()));
        assertEquals(
                List.of(
                        "final_test_loss",
                        "final_test_accuracy",
                        "hold_accuracy",
                        "time_to_hold_s",
                        "worker_time_to_hold_s",
                        "target_accuracy",
                        "time_to_target_s",
                        "worker_time_to_target_s"),
                header.subList(LiveSummaryCsv.COLUMNS.size(), header.size()));
        String[] ata = lines.get(1).split(",", -1);
        String[] gta = lines.get(2).split(",", -1);
        assertEquals(header.size(), ata.length);
        assertEquals("ata-auto", ata[0]);
        assertEquals("", ata[header.indexOf("final_suboptimality")], "a network has none");
        assertEquals(0.82, Double.parseDouble(ata[header.indexOf("final_test_accuracy")]));
        assertEquals(0.5, Double.parseDouble(ata[header.indexOf("final_test_loss")]));
        assertEquals(0.7, Double.parseDouble(ata[header.indexOf("hold_accuracy")]));
        assertEquals(4.25, Double.parseDouble(ata[header.indexOf("time_to_hold_s")]));
        assertEquals(3.5, Double.parseDouble(ata[header.indexOf("worker_time_to_hold_s")]));
        assertEquals(0.8, Double.parseDouble(ata[header.indexOf("target_accuracy")]));
        assertEquals(8.0, Double.parseDouble(ata[header.indexOf("time_to_target_s")]));
        assertEquals(7.0, Double.parseDouble(ata[header.indexOf("worker_time_to_target_s")]));
        assertEquals("gta", gta[0]);
        assertEquals("", gta[header.indexOf("time_to_target_s")], "never reached: empty");
        assertEquals(6.0, Double.parseDouble(gta[header.indexOf("time_to_hold_s")]), "held 70% from round 20");
        assertEquals("", gta[header.indexOf("worker_time_to_target_s")]);
        assertEquals(19_000, Double.parseDouble(gta[header.indexOf("total_worker_time_ms")]));
    }

    @Test
    void tableOfANetworkRunShowsAccuracyAndTimesToHoldAndToFirstReach() {
        assertEquals("""
                policy    rounds  wall time  mean round  mean round 5-20  worker time   wasted work  test accuracy  time to hold 70%  worker time to hold 70%  time to first 80%
                ----------------------------------------------------------------------------------------------------------------------------------------------------------------
                ata-auto      20      8.5 s    400.0 ms         380.0 ms        7.0 s    0.0 s (0%)         82.00%             4.3 s                    3.5 s              8.0 s
                gta           20      6.5 s    300.0 ms         290.0 ms       19.0 s  14.0 s (74%)         79.00%             6.0 s                   19.0 s                  -
                """, LiveResultTable.format(JOBS, List.of(ATA, GTA), 0.7, 0.8));
    }

    @Test
    void accuracyChartHasTwoPanelsWithALinePerPolicy(@TempDir Path dir) throws IOException {
        Path file = dir.resolve(AccuracyChart.FILE);
        AccuracyChart.write(file, List.of(ATA, GTA), LEVELS, "ata demo: test");
        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(1400, image.getWidth());
        assertEquals(560, image.getHeight());
        // each panel draws the policies' colours: ATA-Auto's red and GTA's orange, left and right
        int red = PolicyColorsTestAccess.rgb("ata-auto");
        int orange = PolicyColorsTestAccess.rgb("gta");
        for (int[] half : new int[][] {{0, 700}, {700, 1400}}) {
            assertTrue(contains(image, half, red), "ata-auto's line in panel " + half[0]);
            assertTrue(contains(image, half, orange), "gta's line in panel " + half[0]);
        }
        assertNotEquals(0, Files.size(file));
    }

    @Test
    void accuracyChartMarksTheLevelsAndZoomsToTheBandAroundThem() {
        List<JFreeChart> panels = AccuracyChart.panels(List.of(ATA, GTA), LEVELS);
        assertEquals(2, panels.size());
        for (JFreeChart panel : panels) {
            XYPlot plot = panel.getXYPlot();
            // from 8 points below the lowest level (70%) to a point above the highest accuracy (82%)
            assertEquals(0.62, plot.getRangeAxis().getLowerBound(), 1e-12);
            assertEquals(0.83, plot.getRangeAxis().getUpperBound(), 1e-12);
            Collection<?> markers = plot.getRangeMarkers(Layer.BACKGROUND);
            assertEquals(
                    List.of("target 80% @ 0.8", "held for good 70% @ 0.7"),
                    markers.stream()
                            .map(m -> ((ValueMarker) m).getLabel() + " @ " + ((ValueMarker) m).getValue())
                            .toList());
            assertEquals(2, plot.getDataset().getSeriesCount(), "a line per policy");
        }
    }

    @Test
    void theZoomedAxisKeepsTheHighestAccuracyAndTheLevelsInView() {
        // a curve above every level: the axis reaches up to it
        LearningCurve high = curve("uta", "0 0 0 2.3 0.1", "10 1 1 0.2 0.955");
        double[] range = AccuracyChart.accuracyRange(List.of(high), LEVELS);
        assertArrayEquals(new double[] {0.62, 0.97}, range, 1e-12);
        // a curve that never gets near the target: the target line and where the curve ended stay in view
        LearningCurve low = curve("uta", "0 0 0 2.3 0.1", "10 1 1 0.2 0.5");
        assertArrayEquals(new double[] {0.42, 0.81}, AccuracyChart.accuracyRange(List.of(low), LEVELS), 1e-12);
        // no level: the curves' whole range
        assertArrayEquals(new double[] {0.1, 0.51}, AccuracyChart.accuracyRange(List.of(low), List.of()), 1e-12);
        assertEquals(1.0, AccuracyChart.accuracyRange(List.of(curve("x", "0 0 0 0 1.0")), LEVELS)[1], "at most 100%");
    }

    @Test
    void workerTimelineSumsTheTasksEndedByThen() {
        WorkerTimeline t = WorkerTimeline.of(List.of(
                new TimingRecord("a", 30, 1L, "t3", 1_300L, TimingRecord.Status.LATE),
                new TimingRecord("a", 10, 1L, "t1", 1_100L, TimingRecord.Status.COMPLETED),
                new TimingRecord("b", 20, 1L, "t2", 1_200L, TimingRecord.Status.COMPLETED),
                new TimingRecord("c", 5, 1L, "t4", 1_200L, TimingRecord.Status.CANCELLED),
                new TimingRecord("c", 7, null, null, null, null)));
        assertEquals(0, t.workerMsUntil(1_099));
        assertEquals(10, t.workerMsUntil(1_100));
        assertEquals(35, t.workerMsUntil(1_200), "both tasks that ended at 1200, cancelled time included");
        assertEquals(35, t.workerMsUntil(1_299));
        assertEquals(65, t.workerMsUntil(1_300));
        assertEquals(65, t.workerMsUntil(Long.MAX_VALUE - 1), "a task without an end time counts last");
        assertEquals(72, t.workerMsUntil(Long.MAX_VALUE));
    }

    private static boolean contains(BufferedImage image, int[] xRange, int rgb) {
        for (int x = xRange[0]; x < xRange[1]; x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                if ((image.getRGB(x, y) & 0xFFFFFF) == rgb) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The colours the chart must use. */
    private static final class PolicyColorsTestAccess {
        static int rgb(String policy) {
            return new PolicyColors(List.of(policy)).color(policy).getRGB() & 0xFFFFFF;
        }
    }

    /** A policy's curve from its rows, each an evaluation's fields separated by spaces (see {@link #point}). */
    private static LearningCurve curve(String policy, String... rows) {
        return new LearningCurve(
                policy, Arrays.stream(rows).map(r -> point(r.split(" "), 0)).toList());
    }

    /**
     * The evaluation in {@code fields[from]} onwards, in eval.csv's order: round, wall time (s),
     * worker time (s), test loss, test accuracy.
     */
    private static EvaluationPoint point(String[] fields, int from) {
        return new EvaluationPoint(
                Long.parseLong(fields[from]),
                Double.parseDouble(fields[from + 1]),
                Double.parseDouble(fields[from + 2]),
                Double.parseDouble(fields[from + 3]),
                Double.parseDouble(fields[from + 4]));
    }
}
