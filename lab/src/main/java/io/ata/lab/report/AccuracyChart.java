package io.ata.lab.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;

/**
 * {@code accuracy.png} of a live run on a network: test accuracy against wall time (left) and
 * against the agents' compute time (right), one line per policy. The left panel shows which policy
 * learns fastest, the right one what each paid for it. Both draw the accuracies the reports time
 * as labelled lines, and zoom the accuracy axis to the band around them
 * ({@link #accuracyRange}): the curves all climb from 10% to 70% within a few rounds, and what
 * tells the policies apart is when they get from there to the target.
 */
public final class AccuracyChart {
    public static final String FILE = "accuracy.png";
    private static final int WIDTH = 1400;
    private static final int HEIGHT = 560;
    /** How far below the lowest marked accuracy the zoomed axis starts. */
    static final double BELOW = 0.08;
    /** Room above the highest accuracy drawn or marked. */
    static final double ABOVE = 0.01;

    private static final Color MARKER = new Color(60, 60, 60);

    /**
     * An accuracy the chart marks with a horizontal line.
     *
     * @param label what the line is, e.g. "target 80%"
     */
    public record Level(double accuracy, String label) {}

    private AccuracyChart() {}

    /**
     * @param header the line above both panels (the run's setting)
     * @param levels the accuracies to mark (the target, the accuracy held), highest first
     */
    public static void write(Path file, List<LearningCurve> curves, List<Level> levels, String header) {
        ChartFiles.grid(panels(curves, levels), 2, header, file, WIDTH, HEIGHT);
    }

    /** The two panels: over wall time, over worker time. */
    static List<JFreeChart> panels(List<LearningCurve> curves, List<Level> levels) {
        PolicyColors colors =
                new PolicyColors(curves.stream().map(LearningCurve::policy).toList());
        double[] range = accuracyRange(curves, levels);
        return List.of(
                panel(
                        "Test accuracy over wall time",
                        "wall time (s)",
                        curves,
                        LearningCurve::wallSeconds,
                        colors,
                        levels,
                        range),
                panel(
                        "Test accuracy over worker time",
                        "worker time: compute time of every task run (s)",
                        curves,
                        LearningCurve::workerSeconds,
                        colors,
                        levels,
                        range));
    }

    /**
     * The accuracy axis' {lower, upper} bound: from {@value #BELOW} below the lowest marked
     * accuracy or final accuracy of a curve, whichever is lower (rounded down to a percent; so
     * where each curve ended is in view, however far below the target), to {@value #ABOVE} above
     * the highest accuracy drawn or marked (rounded up to a percent, at most 1). Without a level,
     * the whole range of the curves.
     */
    static double[] accuracyRange(List<LearningCurve> curves, List<Level> levels) {
        double highest = levels.stream().mapToDouble(Level::accuracy).max().orElse(0);
        double lowestMarked = levels.stream().mapToDouble(Level::accuracy).min().orElse(1);
        double lowestDrawn = 1;
        for (LearningCurve c : curves) {
            for (double a : c.accuracies()) {
                highest = Math.max(highest, a);
                lowestDrawn = Math.min(lowestDrawn, a);
            }
            if (!c.points().isEmpty()) {
                lowestMarked = Math.min(lowestMarked, c.finalAccuracy());
            }
        }
        double lower = levels.isEmpty() ? lowestDrawn : lowestMarked - BELOW;
        lower = Math.max(0, Math.floor(lower * 100 + 1e-9) / 100);
        double upper = Math.min(1, Math.ceil((highest + ABOVE) * 100 - 1e-9) / 100);
        return new double[] {lower, Math.max(upper, lower + 0.01)};
    }

    private static JFreeChart panel(
            String title,
            String xLabel,
            List<LearningCurve> curves,
            Function<LearningCurve, double[]> x,
            PolicyColors colors,
            List<Level> levels,
            double[] range) {
        List<LineChart.Curve> lines = curves.stream()
                .map(c -> new LineChart.Curve(c.policy(), x.apply(c), c.accuracies()))
                .toList();
        JFreeChart chart = LineChart.create(
                title, new LineChart.Axis(xLabel, false), new LineChart.Axis("test accuracy", false), lines, colors);
        NumberAxis accuracy = (NumberAxis) chart.getXYPlot().getRangeAxis();
        accuracy.setRange(range[0], range[1]);
        accuracy.setNumberFormatOverride(new DecimalFormat("0%", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        for (Level level : levels) {
            chart.getXYPlot().addRangeMarker(marker(level), Layer.BACKGROUND);
        }
        List<String> below = new ArrayList<>();
        for (LearningCurve c : curves) {
            for (double a : c.accuracies()) {
                if (a < range[0]) {
                    below.add(c.policy());
                    break;
                }
            }
        }
        if (!below.isEmpty()) {
            chart.addSubtitle(new TextTitle(
                    String.format(
                            Locale.ROOT,
                            "accuracy axis zoomed to %.0f%%-%.0f%%: the first evaluations lie below it",
                            100 * range[0],
                            100 * range[1]),
                    ChartStyle.TICK));
        }
        return chart;
    }

    /** A dashed horizontal line at the level, its label at the left end above the line. */
    private static ValueMarker marker(Level level) {
        ValueMarker m = new ValueMarker(
                level.accuracy(),
                MARKER,
                new BasicStroke(1.4f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        m.setLabel(level.label());
        m.setLabelFont(ChartStyle.LABEL);
        m.setLabelPaint(MARKER);
        m.setLabelBackgroundColor(new Color(255, 255, 255, 0)); // the label on the plot, not in a grey box
        m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
        m.setLabelTextAnchor(TextAnchor.BOTTOM_LEFT);
        return m;
    }
}
