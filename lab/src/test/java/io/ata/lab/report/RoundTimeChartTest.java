package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.sim.SeriesSampler;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundTimeChartTest {

    @Test
    void windowsShowTheRoundTimeBeforeAndAfterAChange() {
        // round time 10 up to round 1000, then 100: the running average would blur the step
        long[] rounds = SeriesSampler.rounds(2000);
        double[] runtime = new double[rounds.length];
        for (int i = 0; i < rounds.length; i++) {
            long k = rounds[i];
            runtime[i] = k <= 1000 ? 10.0 * k : 10_000 + 100.0 * (k - 1000);
        }
        Map<SeriesMetric, double[]> means = new EnumMap<>(SeriesMetric.class);
        means.put(SeriesMetric.RUNTIME, runtime);
        PolicySeries series = new PolicySeries("p", rounds, 1, means, new EnumMap<>(SeriesMetric.class));

        LineChart.Curve curve = RoundTimeChart.windowed(series, 500);

        assertArrayEquals(new double[] {500, 1000, 1500, 2000}, curve.x());
        assertArrayEquals(new double[] {10, 10, 100, 100}, curve.y(), 1e-9);
    }

    @Test
    void theTimeAxisIsLogarithmicOnlyWhenTheCurvesSpanMoreThanTwoDecades() {
        LineChart.Curve ata = new LineChart.Curve("ata-auto", new double[] {1, 2}, new double[] {1000, 1100});
        LineChart.Curve tenfold = new LineChart.Curve("slowed", new double[] {1, 2}, new double[] {1000, 10_000});
        LineChart.Curve hung = new LineChart.Curve("waits", new double[] {1, 2}, new double[] {1000, 7e7});
        assertFalse(RoundTimeChart.spansDecades(List.of(ata, tenfold)), "a tenfold step reads on a linear axis");
        assertTrue(RoundTimeChart.spansDecades(List.of(ata, hung)), "a hang would flatten every other curve");
    }
}
