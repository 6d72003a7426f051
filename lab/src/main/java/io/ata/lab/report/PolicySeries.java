package io.ata.lab.report;

import io.ata.lab.sim.RunResult;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One policy's per-round metrics averaged over seeds: mean and sample standard deviation at each
 * sampled round. Only rounds that every seed reached are kept, so a replay that stopped early for
 * one seed never mixes averages over different numbers of seeds.
 *
 * @param policy the policy name
 * @param rounds the sampled rounds, ascending
 * @param seeds  how many runs were averaged
 */
public record PolicySeries(
        String policy, long[] rounds, int seeds, Map<SeriesMetric, double[]> means, Map<SeriesMetric, double[]> sds) {

    /** Averages the runs of one policy (one run per seed; all runs share the sampled rounds). */
    public static PolicySeries of(List<RunResult> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no runs");
        }
        int common = runs.stream().mapToInt(r -> r.series().size()).min().orElseThrow();
        long[] rounds = Arrays.copyOf(runs.get(0).series().rounds(), common);
        Map<SeriesMetric, double[]> means = new EnumMap<>(SeriesMetric.class);
        Map<SeriesMetric, double[]> sds = new EnumMap<>(SeriesMetric.class);
        for (SeriesMetric metric : SeriesMetric.values()) {
            double[] mean = new double[common];
            double[] sd = new double[common];
            double[] atRound = new double[runs.size()];
            for (int i = 0; i < common; i++) {
                for (int s = 0; s < runs.size(); s++) {
                    atRound[s] = metric.of(runs.get(s).series())[i];
                }
                mean[i] = mean(atRound);
                sd[i] = sampleSd(atRound, mean[i]);
            }
            means.put(metric, mean);
            sds.put(metric, sd);
        }
        return new PolicySeries(runs.get(0).policy(), rounds, runs.size(), means, sds);
    }

    public int size() {
        return rounds.length;
    }

    public double[] mean(SeriesMetric metric) {
        return means.get(metric);
    }

    public double[] sd(SeriesMetric metric) {
        return sds.get(metric);
    }

    /** The sampled rounds as doubles, for use as a chart axis. */
    public double[] roundsAsDoubles() {
        return Arrays.stream(rounds).asDoubleStream().toArray();
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /** Sample standard deviation; 0 for a single value (as in {@code PolicySummary}). */
    private static double sampleSd(double[] values, double mean) {
        if (values.length < 2) {
            return 0;
        }
        double squares = 0;
        for (double v : values) {
            squares += (v - mean) * (v - mean);
        }
        return Math.sqrt(squares / (values.length - 1));
    }
}
