package io.ata.lab.sim;

import java.util.List;
import java.util.function.ToDoubleFunction;

/** Mean and spread (sample standard deviation) of a policy's metrics over seeds. */
public record PolicySummary(
        String policy,
        String description,
        int seeds,
        Stat rounds,
        Stat runtime,
        Stat totalWorkerTime,
        Stat meanRoundTime,
        Stat meanBusyTime,
        Stat averageProxyRegret,
        Stat finalObjective,
        Stat wastedFraction,
        Stat tailRoundTime,
        Stat tailBusyTime,
        Stat firstFtaRound,
        Stat lastNonFtaRound) {

    /** Mean and sample standard deviation (0 for a single seed). */
    public record Stat(double mean, double sd) {
        static Stat of(List<RunResult> runs, ToDoubleFunction<RunResult> metric) {
            int n = runs.size();
            double sum = 0;
            for (RunResult r : runs) {
                sum += metric.applyAsDouble(r);
            }
            double mean = sum / n;
            double squares = 0;
            for (RunResult r : runs) {
                double d = metric.applyAsDouble(r) - mean;
                squares += d * d;
            }
            return new Stat(mean, n > 1 ? Math.sqrt(squares / (n - 1)) : 0);
        }
    }

    public static PolicySummary of(List<RunResult> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no runs");
        }
        RunResult first = runs.get(0);
        return new PolicySummary(
                first.policy(),
                first.description(),
                runs.size(),
                Stat.of(runs, r -> r.rounds()),
                Stat.of(runs, RunResult::runtime),
                Stat.of(runs, RunResult::totalWorkerTime),
                Stat.of(runs, RunResult::meanRoundTime),
                Stat.of(runs, RunResult::meanBusyTime),
                Stat.of(runs, RunResult::averageProxyRegret),
                Stat.of(runs, RunResult::finalObjective),
                Stat.of(runs, RunResult::wastedFraction),
                Stat.of(runs, RunResult::tailRoundTime),
                Stat.of(runs, RunResult::tailBusyTime),
                Stat.of(runs, r -> r.firstFtaRound()),
                Stat.of(runs, r -> r.lastNonFtaRound()));
    }
}
