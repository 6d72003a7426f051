package io.ata.lab.report;

import io.ata.lab.sim.RunResult;
import java.util.function.Function;

/**
 * The per-round metrics a run keeps at its sampled rounds (the paper's figure quantities). One
 * enum so that {@code series.csv} and the charts name and read them the same way.
 */
public enum SeriesMetric {
    /** Cumulative runtime after round k: the sum of the round times. */
    RUNTIME("runtime", RunResult.Series::runtime),
    /** Cumulative busy time of all workers after round k (cancelled work included). */
    TOTAL_WORKER_TIME("total_worker_time", RunResult.Series::workerTime),
    /** {@code runtime_k / k}. */
    AVG_ROUND_TIME("avg_round_time", RunResult.Series::averageRoundTime),
    /** Averaged proxy regret against FTA after round k. */
    AVG_PROXY_REGRET("avg_proxy_regret", RunResult.Series::averageProxyRegret),
    /** Suboptimality {@code f(x_k) - f*} of the SGD run trained alongside. */
    OBJECTIVE("objective", RunResult.Series::objective);

    private final String column;
    private final Function<RunResult.Series, double[]> values;

    SeriesMetric(String column, Function<RunResult.Series, double[]> values) {
        this.column = column;
        this.values = values;
    }

    /** The column name in {@code series.csv}. */
    public String column() {
        return column;
    }

    /** This metric's values in a run's series, one per sampled round. */
    public double[] of(RunResult.Series series) {
        return values.apply(series);
    }
}
