package io.ata.lab.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.geom.Point2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYLineAnnotation;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.TextAnchor;

/**
 * Writes each point's name next to it without names covering each other or other points.
 * JFreeChart's item labels overlap as soon as points cluster, which is where the interesting
 * settings of a Pareto chart usually are. Each label takes the first free spot among positions
 * around its point, nearest first; a label pushed away from its point gets a thin leader line.
 * Positions are worked out in pixels for the final image size, so the chart is laid out once at
 * that size first and its axis ranges are then frozen.
 */
final class PointLabels {
    private static final int GAP = 7; // pixels between a marker's centre and its label
    private static final int MARKER_RADIUS = 6;
    private static final int RINGS = 12; // how far (in label heights) a label may be pushed

    private PointLabels() {}

    /**
     * Labels {@code points} (all drawn in the chart) in {@code chart}, earlier points getting the better spots, keeping clear
     * of the polyline {@code avoid} (data coordinates, e.g. the Pareto staircase).
     */
    static void place(
            JFreeChart chart, List<ParetoFront.Point> points, List<double[]> avoid, Font font, int width, int height) {
        ChartRenderingInfo info = new ChartRenderingInfo();
        chart.createBufferedImage(width, height, info);
        Rectangle2D area = info.getPlotInfo().getDataArea();
        XYPlot plot = chart.getXYPlot();
        ValueAxis xAxis = plot.getDomainAxis();
        ValueAxis yAxis = plot.getRangeAxis();
        xAxis.setRange(xAxis.getRange()); // freeze: the labels are placed for these ranges
        yAxis.setRange(yAxis.getRange());

        List<Point2D> markers = new ArrayList<>();
        for (ParetoFront.Point p : points) {
            markers.add(new Point2D.Double(
                    xAxis.valueToJava2D(p.x(), area, RectangleEdge.BOTTOM),
                    yAxis.valueToJava2D(p.y(), area, RectangleEdge.LEFT)));
        }
        List<Point2D> line = new ArrayList<>();
        for (double[] v : avoid) {
            line.add(new Point2D.Double(
                    xAxis.valueToJava2D(v[0], area, RectangleEdge.BOTTOM),
                    yAxis.valueToJava2D(v[1], area, RectangleEdge.LEFT)));
        }
        FontMetrics metrics = metrics(font);
        List<Rectangle2D> taken = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            Point2D at = markers.get(i);
            String text = points.get(i).label();
            double w = metrics.stringWidth(text) + 2;
            double h = metrics.getAscent() + metrics.getDescent();
            List<Rectangle2D> candidates = candidates(at, w, h);
            Rectangle2D spot = candidates.stream()
                    .filter(r -> area.contains(r) && free(r, taken, markers, line))
                    .findFirst()
                    .orElse(candidates.get(0));
            taken.add(spot);

            XYTextAnnotation label = new XYTextAnnotation(
                    text,
                    xAxis.java2DToValue(spot.getCenterX(), area, RectangleEdge.BOTTOM),
                    yAxis.java2DToValue(spot.getCenterY(), area, RectangleEdge.LEFT));
            label.setFont(font);
            label.setTextAnchor(TextAnchor.CENTER);
            plot.addAnnotation(label);
            if (spot.getMinY() > at.getY() + GAP + h
                    || spot.getMaxY() < at.getY() - GAP - h
                    || spot.getMinX() > at.getX() + 2 * GAP
                    || spot.getMaxX() < at.getX() - 2 * GAP) {
                Point2D end = nearestOnEdge(spot, at);
                plot.addAnnotation(new XYLineAnnotation(
                        xAxis.java2DToValue(at.getX(), area, RectangleEdge.BOTTOM),
                        yAxis.java2DToValue(at.getY(), area, RectangleEdge.LEFT),
                        xAxis.java2DToValue(end.getX(), area, RectangleEdge.BOTTOM),
                        yAxis.java2DToValue(end.getY(), area, RectangleEdge.LEFT),
                        new BasicStroke(0.8f),
                        Color.GRAY));
            }
        }
    }

    /** Right, left, above, below; then right and left shifted up and down by whole label heights. */
    private static List<Rectangle2D> candidates(Point2D at, double w, double h) {
        double x = at.getX();
        double y = at.getY();
        List<Rectangle2D> c = new ArrayList<>();
        c.add(new Rectangle2D.Double(x + GAP, y - h / 2, w, h));
        c.add(new Rectangle2D.Double(x - GAP - w, y - h / 2, w, h));
        c.add(new Rectangle2D.Double(x - w / 2, y - GAP - h, w, h));
        c.add(new Rectangle2D.Double(x - w / 2, y + GAP, w, h));
        for (int ring = 1; ring <= RINGS; ring++) {
            for (int sign : new int[] {-1, 1}) {
                double dy = sign * ring * (h + 2);
                c.add(new Rectangle2D.Double(x + 2 * GAP, y - h / 2 + dy, w, h));
                c.add(new Rectangle2D.Double(x - 2 * GAP - w, y - h / 2 + dy, w, h));
            }
        }
        return c;
    }

    private static boolean free(Rectangle2D r, List<Rectangle2D> taken, List<Point2D> markers, List<Point2D> line) {
        for (int k = 1; k < line.size(); k++) {
            Point2D a = line.get(k - 1);
            Point2D b = line.get(k);
            if (r.intersectsLine(a.getX(), a.getY(), b.getX(), b.getY())) {
                return false;
            }
        }
        for (Rectangle2D t : taken) {
            if (t.intersects(r)) {
                return false;
            }
        }
        for (Point2D m : markers) {
            if (r.intersects(
                    m.getX() - MARKER_RADIUS, m.getY() - MARKER_RADIUS, 2 * MARKER_RADIUS, 2 * MARKER_RADIUS)) {
                return false;
            }
        }
        return true;
    }

    private static Point2D nearestOnEdge(Rectangle2D r, Point2D p) {
        return new Point2D.Double(
                Math.max(r.getMinX(), Math.min(p.getX(), r.getMaxX())),
                Math.max(r.getMinY(), Math.min(p.getY(), r.getMaxY())));
    }

    private static FontMetrics metrics(Font font) {
        Graphics2D g = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
        try {
            return g.getFontMetrics(font);
        } finally {
            g.dispose();
        }
    }
}
