package io.ata.lab.report;

import io.ata.lab.sim.RunResult;
import io.ata.lab.sim.SeriesSampler;
import java.util.Arrays;

/** Made-up run results with simple, known numbers, for testing the reports without simulating. */
final class RunResults {
    private RunResults() {}

    /**
     * A run whose round k takes {@code 10 + seed} time units, with busy time twice that, proxy
     * regret {@code 1/k} and objective {@code 100/k}.
     */
    static RunResult run(String policy, long seed, long rounds, String stopReason) {
        long[] sampled = SeriesSampler.rounds(rounds);
        int n = sampled.length;
        double roundTime = 10 + seed;
        double[] runtime = new double[n];
        double[] work = new double[n];
        double[] avgRound = new double[n];
        double[] regret = new double[n];
        double[] objective = new double[n];
        for (int i = 0; i < n; i++) {
            runtime[i] = roundTime * sampled[i];
            work[i] = 2 * runtime[i];
            avgRound[i] = roundTime;
            regret[i] = 1.0 / sampled[i];
            objective[i] = 100.0 / sampled[i];
        }
        return new RunResult(
                policy,
                policy + " described",
                4,
                2,
                seed,
                rounds,
                roundTime * rounds,
                2 * roundTime * rounds,
                roundTime * rounds,
                Double.NaN,
                Double.NaN,
                roundTime,
                2 * roundTime,
                -1,
                -1,
                stopReason,
                new RunResult.Series(sampled, runtime, work, avgRound, regret, objective));
    }

    /** The same run with its objective and proxy regret unknown (NaN), as charts must survive. */
    static RunResult withoutObjective(RunResult r) {
        RunResult.Series s = r.series();
        double[] nan = new double[s.size()];
        Arrays.fill(nan, Double.NaN);
        return new RunResult(
                r.policy(),
                r.description(),
                r.workers(),
                r.batch(),
                r.seed(),
                r.rounds(),
                r.runtime(),
                r.totalWorkerTime(),
                r.acceptedTime(),
                r.proxyLossSum(),
                r.ftaProxyLoss(),
                r.tailRoundTime(),
                r.tailBusyTime(),
                r.firstFtaRound(),
                r.lastNonFtaRound(),
                r.stopReason(),
                new RunResult.Series(s.rounds(), s.runtime(), s.workerTime(), s.averageRoundTime(), nan, nan));
    }
}
