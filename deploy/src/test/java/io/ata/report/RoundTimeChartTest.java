package io.ata.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.ata.sim.SeriesSampler;
import java.util.EnumMap;
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
}
