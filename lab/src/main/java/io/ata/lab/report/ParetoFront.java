package io.ata.lab.report;

import io.ata.lab.sim.PolicySummary;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The settings worth choosing from when both time and cost matter: a point is Pareto-optimal if no
 * other point is at least as good on both (lower is better on both) and strictly better on one.
 */
public final class ParetoFront {

    /** A labelled point: {@code x} the cost, {@code y} the time. */
    public record Point(String label, double x, double y) {}

    private ParetoFront() {}

    /** Each policy as a point: x its mean busy time per round (cost), y its mean round time. */
    public static List<Point> timeVsCost(List<PolicySummary> summaries) {
        return summaries.stream()
                .map(s -> new Point(
                        s.policy(), s.meanBusyTime().mean(), s.meanRoundTime().mean()))
                .toList();
    }

    /** The Pareto-optimal points among those with finite coordinates, by increasing x. */
    public static List<Point> of(List<Point> points) {
        List<Point> finite = points.stream()
                .filter(p -> Double.isFinite(p.x()) && Double.isFinite(p.y()))
                .toList();
        List<Point> front = new ArrayList<>();
        for (Point p : finite) {
            boolean dominated = finite.stream()
                    .anyMatch(q -> q != p && q.x() <= p.x() && q.y() <= p.y() && (q.x() < p.x() || q.y() < p.y()));
            if (!dominated) {
                front.add(p);
            }
        }
        front.sort(Comparator.comparingDouble(Point::x).thenComparingDouble(Point::y));
        return front;
    }

    /**
     * The staircase through the front, by increasing x: from each point right to the next one's x,
     * then down to its y. Everything above and to the right of it is dominated.
     */
    public static List<double[]> staircase(List<Point> front) {
        List<double[]> steps = new ArrayList<>();
        for (int i = 0; i < front.size(); i++) {
            Point p = front.get(i);
            if (i > 0) {
                steps.add(new double[] {p.x(), front.get(i - 1).y()});
            }
            steps.add(new double[] {p.x(), p.y()});
        }
        return steps;
    }
}
