package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParetoFrontTest {

    private static ParetoFront.Point p(String label, double cost, double time) {
        return new ParetoFront.Point(label, cost, time);
    }

    @Test
    void keepsOnlyUndominatedPointsByIncreasingCost() {
        List<ParetoFront.Point> points = List.of(
                p("uta", 35, 48),
                p("gta", 25, 5),
                p("fta", 4.0, 7.8),
                p("hedge1", 3.9, 6.4),
                p("hedge4", 4.2, 5.6),
                p("auto", 4.0, 7.9));
        assertEquals(
                List.of("hedge1", "hedge4", "gta"),
                ParetoFront.of(points).stream().map(ParetoFront.Point::label).toList());
    }

    @Test
    void equalPointsAreBothOptimalAndNanIsIgnored() {
        List<ParetoFront.Point> points = List.of(p("a", 1, 1), p("b", 1, 1), p("c", Double.NaN, 0), p("d", 2, 2));
        assertEquals(
                List.of("a", "b"),
                ParetoFront.of(points).stream().map(ParetoFront.Point::label).toList());
    }

    @Test
    void staircaseGoesRightThenDown() {
        List<double[]> steps = ParetoFront.staircase(List.of(p("a", 1, 10), p("b", 3, 4), p("c", 8, 2)));
        double[][] expected = {{1, 10}, {3, 10}, {3, 4}, {8, 4}, {8, 2}};
        assertEquals(expected.length, steps.size());
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], steps.get(i));
        }
    }
}
