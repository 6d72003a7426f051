package io.ata.lab.report;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.SeriesRenderingOrder;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Makes one line chart: one curve per policy, in the policy's colour, on linear or log axes.
 * Points that cannot be drawn are left out rather than failing the chart: NaN values (a metric
 * unknown for that run), and zero or negative values on a log axis (FTA's proxy regret is 0, up
 * to rounding), which a note under the title then names. An axis asked to be logarithmic stays
 * linear when its values span too short a range for a log scale to help (see
 * {@link ChartStyle#worthLog}).
 */
public final class LineChart {

    /** One axis: its label (with units) and whether it should be logarithmic. */
    public record Axis(String label, boolean log) {}

    /** One policy's curve. */
    public record Curve(String name, double[] x, double[] y) {}

    /** Values below this fraction of the largest one are zero up to rounding. */
    private static final double ROUNDING_ZERO = 1e-10;

    private static final float WIDEST = 5.0f;
    private static final float NARROWEST = 1.5f;
    private static final float MAX_WIDTH_STEP = 1.0f;

    private LineChart() {}

    public static JFreeChart create(String title, Axis xAxis, Axis yAxis, List<Curve> curves, PolicyColors colors) {
        Scale x = Scale.of(xAxis, curves, Curve::x);
        Scale y = Scale.of(yAxis, curves, Curve::y);
        XYSeriesCollection data = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
        Set<String> offScale = new LinkedHashSet<>(); // curves with values a log axis cannot show
        for (int i = 0; i < curves.size(); i++) {
            Curve c = curves.get(i);
            XYSeries s = new XYSeries(c.name(), false, true);
            for (int k = 0; k < Math.min(c.x().length, c.y().length); k++) {
                double xv = c.x()[k];
                double yv = c.y()[k];
                if (Double.isFinite(xv) && Double.isFinite(yv)) {
                    if (x.shows(xv) && y.shows(yv)) {
                        s.add(xv, yv, false);
                    } else {
                        offScale.add(c.name());
                    }
                }
            }
            data.addSeries(s);
            renderer.setSeriesPaint(i, colors.color(c.name()));
            renderer.setSeriesStroke(i, colors.stroke(c.name(), lineWidth(i, curves.size())));
        }
        XYPlot plot = new XYPlot(
                data, ChartStyle.axis(xAxis.label(), x.log()), ChartStyle.axis(yAxis.label(), y.log()), renderer);
        plot.setSeriesRenderingOrder(SeriesRenderingOrder.FORWARD); // the widest line first, see lineWidth
        JFreeChart chart = new JFreeChart(title, ChartStyle.TITLE, plot, true);
        if (!offScale.isEmpty()) {
            chart.addSubtitle(new TextTitle(
                    "not drawn where 0 or below (a log scale cannot show it): " + String.join(", ", offScale),
                    ChartStyle.TICK));
        }
        ChartStyle.apply(chart);
        return chart;
    }

    /**
     * The width of curve {@code i} of {@code n}: curves are drawn in order, each narrower than the
     * one before, so where two policies' curves coincide (ATA and ATA-Empirical late in a run) the
     * earlier one shows as a coloured edge around the later one instead of vanishing under it.
     */
    static float lineWidth(int i, int n) {
        float step = n <= 1 ? 0 : Math.min(MAX_WIDTH_STEP, (WIDEST - NARROWEST) / (n - 1));
        return WIDEST - step * i;
    }

    /**
     * How one axis is drawn: log or linear, and on a log axis the largest value treated as zero
     * (anything below {@value #ROUNDING_ZERO} of the largest value: FTA's proxy regret comes out
     * as 1e-13 rather than 0).
     */
    private record Scale(boolean log, double zero) {
        static Scale of(Axis axis, List<Curve> curves, Function<Curve, double[]> values) {
            if (!axis.log()) {
                return new Scale(false, Double.NEGATIVE_INFINITY);
            }
            double max = 0;
            for (Curve c : curves) {
                for (double v : values.apply(c)) {
                    if (Double.isFinite(v)) {
                        max = Math.max(max, v);
                    }
                }
            }
            double zero = max * ROUNDING_ZERO;
            double min = Double.POSITIVE_INFINITY;
            for (Curve c : curves) {
                for (double v : values.apply(c)) {
                    if (Double.isFinite(v) && v > zero) {
                        min = Math.min(min, v);
                    }
                }
            }
            return ChartStyle.worthLog(min, max) ? new Scale(true, zero) : new Scale(false, Double.NEGATIVE_INFINITY);
        }

        boolean shows(double v) {
            return v > zero;
        }
    }
}
