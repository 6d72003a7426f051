package io.ata.lab.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.util.ArrayList;
import java.util.DoubleSummaryStatistics;
import java.util.List;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.SeriesRenderingOrder;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The chart users pick a setting from: each policy (and knob setting, e.g. {@code ata-hedge:2}) as
 * one labelled point, time per round against compute paid per round, with the Pareto-optimal
 * points joined by a staircase; nothing below and left of the staircase was reached. The axes are
 * logarithmic when the values differ by factors (GTA may pay several times the others).
 */
public final class ParetoChart {
    private static final String FRONT = "Pareto front";

    private static final double LARGEST_RADIUS = 9;
    private static final double SMALLEST_RADIUS = 4;

    private ParetoChart() {}

    /** A chart to be saved at {@code width} x {@code height} (the labels are laid out for that size). */
    public static JFreeChart create(
            String title, List<ParetoFront.Point> points, PolicyColors colors, String timeUnit, int width, int height) {
        boolean xLog = worthLog(points, ParetoFront.Point::x);
        boolean yLog = worthLog(points, ParetoFront.Point::y);
        List<ParetoFront.Point> drawn = points.stream()
                .filter(p -> drawable(p.x(), xLog) && drawable(p.y(), yLog))
                .toList();

        XYSeriesCollection data = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(false, true);
        int i = 0;
        for (ParetoFront.Point p : points) {
            XYSeries s = new XYSeries(p.label(), false, true); // empty if not drawable: still in the legend
            if (drawn.contains(p)) {
                s.add(p.x(), p.y());
            }
            data.addSeries(s);
            renderer.setSeriesPaint(i, colors.color(p.label()));
            double r = markerRadius(i, points.size());
            renderer.setSeriesShape(i, new Ellipse2D.Double(-r, -r, 2 * r, 2 * r));
            i++;
        }
        List<ParetoFront.Point> front = ParetoFront.of(drawn);
        List<double[]> steps = ParetoFront.staircase(front);
        XYSeries staircase = new XYSeries(FRONT, false, true);
        for (double[] step : steps) {
            staircase.add(step[0], step[1]);
        }
        data.addSeries(staircase);
        renderer.setSeriesLinesVisible(i, true);
        renderer.setSeriesShapesVisible(i, false);
        renderer.setSeriesPaint(i, Color.GRAY);
        renderer.setSeriesStroke(
                i,
                new BasicStroke(
                        1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10.0f, new float[] {6.0f, 4.0f}, 0.0f));

        XYPlot plot = new XYPlot(
                data,
                ChartStyle.axis("cost: mean busy time per round, all workers (" + timeUnit + ")", xLog),
                ChartStyle.axis("mean round time (" + timeUnit + ")", yLog),
                renderer);
        // Points in legend order, each marker smaller than the one before and ringed in white, so a
        // policy that lands on another (ATA-Auto on FTA) shows as a dot inside the other's ring.
        plot.setSeriesRenderingOrder(SeriesRenderingOrder.FORWARD);
        renderer.setUseOutlinePaint(true);
        renderer.setDefaultOutlinePaint(Color.WHITE);
        renderer.setDefaultOutlineStroke(new BasicStroke(1.5f));
        plot.getDomainAxis().setLowerMargin(0.1);
        plot.getDomainAxis().setUpperMargin(0.15);
        plot.getRangeAxis().setLowerMargin(0.1);
        plot.getRangeAxis().setUpperMargin(0.1);
        JFreeChart chart = new JFreeChart(title, ChartStyle.TITLE, plot, true);
        ChartStyle.apply(chart);

        List<ParetoFront.Point> frontFirst = new ArrayList<>(front); // the front gets the best label spots
        drawn.stream().filter(p -> !front.contains(p)).forEach(frontFirst::add);
        PointLabels.place(chart, frontFirst, steps, ChartStyle.LEGEND, width, height);
        return chart;
    }

    /** The marker radius of point {@code i} of {@code n}: from 9 down to 4 pixels. */
    static double markerRadius(int i, int n) {
        return n <= 1 ? LARGEST_RADIUS : LARGEST_RADIUS - (LARGEST_RADIUS - SMALLEST_RADIUS) * i / (n - 1);
    }

    private static boolean worthLog(List<ParetoFront.Point> points, ToDoubleFunction<ParetoFront.Point> value) {
        DoubleSummaryStatistics range = points.stream()
                .mapToDouble(value)
                .filter(v -> Double.isFinite(v) && v > 0)
                .summaryStatistics();
        return range.getCount() > 0 && ChartStyle.worthLog(range.getMin(), range.getMax());
    }

    private static boolean drawable(double v, boolean log) {
        return Double.isFinite(v) && (!log || v > 0);
    }
}
