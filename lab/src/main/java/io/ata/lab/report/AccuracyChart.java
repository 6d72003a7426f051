package io.ata.lab.report;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.jfree.chart.JFreeChart;

/**
 * {@code accuracy.png} of a live run on a network: test accuracy against wall time (left) and
 * against the agents' compute time (right), one line per policy. The left panel shows which policy
 * learns fastest, the right one what each paid for it.
 */
public final class AccuracyChart {
    public static final String FILE = "accuracy.png";
    private static final int WIDTH = 1400;
    private static final int HEIGHT = 560;
    private static final LineChart.Axis ACCURACY = new LineChart.Axis("test accuracy", false);

    private AccuracyChart() {}

    /** @param header the line above both panels (the run's setting) */
    public static void write(Path file, List<LearningCurve> curves, String header) {
        PolicyColors colors =
                new PolicyColors(curves.stream().map(LearningCurve::policy).toList());
        List<JFreeChart> panels = List.of(
                panel("Test accuracy over wall time", "wall time (s)", curves, LearningCurve::wallSeconds, colors),
                panel(
                        "Test accuracy over worker time",
                        "worker time: compute time of every task run (s)",
                        curves,
                        LearningCurve::workerSeconds,
                        colors));
        ChartFiles.grid(panels, 2, header, file, WIDTH, HEIGHT);
    }

    private static JFreeChart panel(
            String title,
            String xLabel,
            List<LearningCurve> curves,
            Function<LearningCurve, double[]> x,
            PolicyColors colors) {
        List<LineChart.Curve> lines = curves.stream()
                .map(c -> new LineChart.Curve(c.policy(), x.apply(c), c.accuracies()))
                .toList();
        return LineChart.create(title, new LineChart.Axis(xLabel, false), ACCURACY, lines, colors);
    }
}
