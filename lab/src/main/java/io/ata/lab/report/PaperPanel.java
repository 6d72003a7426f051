package io.ata.lab.report;

import java.util.List;
import java.util.function.Function;
import org.jfree.chart.JFreeChart;

/**
 * The four panels of the paper's figures, each a {@link LineChart} of one metric against another:
 * how fast the model trains against wall-clock time (a) and against compute paid for (b), how
 * quickly the round time settles (c), and how quickly the allocation learns (d). Early rounds
 * matter for (c) and (d), hence their log round axis.
 */
public enum PaperPanel {
    OBJECTIVE_VS_RUNTIME("objective_vs_runtime.png", "(a) Objective vs runtime", Quantity.RUNTIME, Quantity.OBJECTIVE),
    OBJECTIVE_VS_WORKER_TIME(
            "objective_vs_worker_time.png",
            "(b) Objective vs total worker time",
            Quantity.WORKER_TIME,
            Quantity.OBJECTIVE),
    AVERAGE_ROUND_TIME("average_round_time.png", "(c) Average round time", Quantity.ROUND, Quantity.AVG_ROUND_TIME),
    PROXY_REGRET("proxy_regret.png", "(d) Averaged proxy regret", Quantity.ROUND, Quantity.AVG_PROXY_REGRET);

    /** What a panel plots along one axis: the axis, and each policy's values along it. */
    private enum Quantity {
        RUNTIME(new LineChart.Axis("cumulative runtime (%s)", false), s -> s.mean(SeriesMetric.RUNTIME)),
        WORKER_TIME(
                new LineChart.Axis("cumulative total worker time (%s)", false),
                s -> s.mean(SeriesMetric.TOTAL_WORKER_TIME)),
        OBJECTIVE(new LineChart.Axis("suboptimality f(x) - f*", true), s -> s.mean(SeriesMetric.OBJECTIVE)),
        ROUND(new LineChart.Axis("round k", true), PolicySeries::roundsAsDoubles),
        AVG_ROUND_TIME(new LineChart.Axis("runtime_k / k  (%s)", false), s -> s.mean(SeriesMetric.AVG_ROUND_TIME)),
        AVG_PROXY_REGRET(
                new LineChart.Axis("averaged proxy regret (%s)", true), s -> s.mean(SeriesMetric.AVG_PROXY_REGRET));

        /** Its label says "(%s)" where the time unit goes. */
        private final LineChart.Axis axis;

        private final Function<PolicySeries, double[]> values;

        Quantity(LineChart.Axis axis, Function<PolicySeries, double[]> values) {
            this.axis = axis;
            this.values = values;
        }

        LineChart.Axis axis(String timeUnit) {
            return new LineChart.Axis(axis.label().replace("%s", timeUnit), axis.log());
        }
    }

    private final String fileName;
    private final String title;
    private final Quantity x;
    private final Quantity y;

    PaperPanel(String fileName, String title, Quantity x, Quantity y) {
        this.fileName = fileName;
        this.title = title;
        this.x = x;
        this.y = y;
    }

    /** The file this panel is saved to on its own. */
    public String fileName() {
        return fileName;
    }

    /** The panel of the policies' series, its time axes labelled in {@code timeUnit} (e.g. ms). */
    public JFreeChart chart(List<PolicySeries> series, PolicyColors colors, String timeUnit) {
        List<LineChart.Curve> curves = series.stream()
                .map(s -> new LineChart.Curve(s.policy(), x.values.apply(s), y.values.apply(s)))
                .toList();
        return LineChart.create(title, x.axis(timeUnit), y.axis(timeUnit), curves, colors);
    }
}
