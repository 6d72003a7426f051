package io.ata.report;

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
    OBJECTIVE_VS_RUNTIME(
            "objective_vs_runtime.png",
            "(a) Objective vs runtime",
            new LineChart.Axis("cumulative runtime (time units)", false),
            s -> s.mean(SeriesMetric.RUNTIME),
            new LineChart.Axis("suboptimality f(x) - f*", true),
            s -> s.mean(SeriesMetric.OBJECTIVE)),
    OBJECTIVE_VS_WORKER_TIME(
            "objective_vs_worker_time.png",
            "(b) Objective vs total worker time",
            new LineChart.Axis("cumulative total worker time (time units)", false),
            s -> s.mean(SeriesMetric.TOTAL_WORKER_TIME),
            new LineChart.Axis("suboptimality f(x) - f*", true),
            s -> s.mean(SeriesMetric.OBJECTIVE)),
    AVERAGE_ROUND_TIME(
            "average_round_time.png",
            "(c) Average round time",
            new LineChart.Axis("round k", true),
            PolicySeries::roundsAsDoubles,
            new LineChart.Axis("runtime_k / k  (time units)", false),
            s -> s.mean(SeriesMetric.AVG_ROUND_TIME)),
    PROXY_REGRET(
            "proxy_regret.png",
            "(d) Averaged proxy regret",
            new LineChart.Axis("round k", true),
            PolicySeries::roundsAsDoubles,
            new LineChart.Axis("averaged proxy regret (time units)", true),
            s -> s.mean(SeriesMetric.AVG_PROXY_REGRET));

    private final String fileName;
    private final String title;
    private final LineChart.Axis xAxis;
    private final Function<PolicySeries, double[]> x;
    private final LineChart.Axis yAxis;
    private final Function<PolicySeries, double[]> y;

    PaperPanel(
            String fileName,
            String title,
            LineChart.Axis xAxis,
            Function<PolicySeries, double[]> x,
            LineChart.Axis yAxis,
            Function<PolicySeries, double[]> y) {
        this.fileName = fileName;
        this.title = title;
        this.xAxis = xAxis;
        this.x = x;
        this.yAxis = yAxis;
        this.y = y;
    }

    /** The file this panel is saved to on its own. */
    public String fileName() {
        return fileName;
    }

    public JFreeChart chart(List<PolicySeries> series, PolicyColors colors) {
        List<LineChart.Curve> curves = series.stream()
                .map(s -> new LineChart.Curve(s.policy(), x.apply(s), y.apply(s)))
                .toList();
        return LineChart.create(title, xAxis, yAxis, curves, colors);
    }
}
