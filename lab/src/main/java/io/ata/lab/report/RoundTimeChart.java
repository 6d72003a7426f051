package io.ata.lab.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jfree.chart.JFreeChart;

/**
 * Round time over rounds ({@code round_time.png}): each policy's mean round time in consecutive
 * windows of {@code rounds / WINDOWS} rounds, read off the cumulative runtime the run keeps at
 * evenly spaced rounds. Unlike the running average of panel (c), a change in the fleet (a worker
 * slowing down after round R) shows at R and so does how soon each policy recovers.
 */
public final class RoundTimeChart {
    public static final String FILE = "round_time.png";
    /** Windows over the run; the sampler keeps every {@code rounds/1000}-th round, so 200 windows are exact. */
    static final int WINDOWS = 200;
    /**
     * Beyond this ratio of the largest to the smallest window mean the time axis is logarithmic:
     * a policy that waits for a hung worker is a million times slower, and on a linear axis every
     * other policy would lie flat on zero.
     */
    static final double LOG_AXIS_RATIO = 100;

    private RoundTimeChart() {}

    public static JFreeChart create(List<PolicySeries> series, PolicyColors colors, String timeUnit) {
        long last = series.stream()
                .mapToLong(s -> s.size() == 0 ? 0 : s.rounds()[s.size() - 1])
                .max()
                .orElse(0);
        long window = Math.max(1, last / WINDOWS);
        List<LineChart.Curve> curves = new ArrayList<>();
        for (PolicySeries s : series) {
            curves.add(windowed(s, window));
        }
        String unit = timeUnit == null ? "time units" : timeUnit;
        return LineChart.create(
                "Round time over rounds",
                new LineChart.Axis("round k", false),
                new LineChart.Axis(
                        window == 1
                                ? "round time (" + unit + ")"
                                : "mean round time of " + window + " rounds (" + unit + ")",
                        spansDecades(curves)),
                curves,
                colors);
    }

    /** True if the window means span more than {@link #LOG_AXIS_RATIO}. */
    static boolean spansDecades(List<LineChart.Curve> curves) {
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        for (LineChart.Curve c : curves) {
            for (double y : c.y()) {
                if (y > 0) {
                    min = Math.min(min, y);
                    max = Math.max(max, y);
                }
            }
        }
        return max > LOG_AXIS_RATIO * min;
    }

    /** Points at the window ends: (runtime at the end - runtime at the start) / window. */
    static LineChart.Curve windowed(PolicySeries s, long window) {
        long[] rounds = s.rounds();
        double[] runtime = s.mean(SeriesMetric.RUNTIME);
        List<double[]> points = new ArrayList<>();
        long start = 0;
        double runtimeAtStart = 0;
        for (long end = window; ; end += window) {
            int i = Arrays.binarySearch(rounds, end);
            if (i < 0) {
                if (end > (rounds.length == 0 ? 0 : rounds[rounds.length - 1])) {
                    break;
                }
                continue; // not sampled (a run shorter than WINDOWS rounds on an odd grid): widen the window
            }
            points.add(new double[] {end, (runtime[i] - runtimeAtStart) / (end - start)});
            start = end;
            runtimeAtStart = runtime[i];
        }
        double[] x = points.stream().mapToDouble(p -> p[0]).toArray();
        double[] y = points.stream().mapToDouble(p -> p[1]).toArray();
        return new LineChart.Curve(s.policy(), x, y);
    }
}
