package io.ata.lab.sim;

/**
 * The outcome of running one policy for one seed.
 *
 * @param rounds          rounds completed (fewer than asked if a replayed log ran out under {@code stop})
 * @param runtime         sum of round times
 * @param totalWorkerTime sum of busy time over all workers and rounds (cancelled work included)
 * @param acceptedTime    sum of the durations of the tasks that went into a batch
 * @param proxyLossSum    sum over rounds of {@code max_i a_i mu_i} (true means), NaN if unknown
 * @param ftaProxyLoss    FTA's proxy value {@code l(a_FTA, mu)}, NaN if unknown
 * @param tailRoundTime   mean round time over the second half of the rounds (the long-run value)
 * @param tailBusyTime    mean busy time per round over the second half of the rounds
 * @param firstFtaRound   first round whose allocation equalled FTA's, -1 if never or unknown
 * @param lastNonFtaRound last round whose allocation differed from FTA's, -1 if unknown
 * @param series          per-round metrics at the sampled rounds
 */
public record RunResult(
        String policy,
        String description,
        int workers,
        int batch,
        long seed,
        long rounds,
        double runtime,
        double totalWorkerTime,
        double acceptedTime,
        double proxyLossSum,
        double ftaProxyLoss,
        double tailRoundTime,
        double tailBusyTime,
        long firstFtaRound,
        long lastNonFtaRound,
        String stopReason,
        Series series) {

    /** This result under another name (a stale run's, {@code ata-auto@stale}). */
    public RunResult labelled(String name) {
        if (name.equals(policy)) {
            return this;
        }
        return new RunResult(
                name,
                description,
                workers,
                batch,
                seed,
                rounds,
                runtime,
                totalWorkerTime,
                acceptedTime,
                proxyLossSum,
                ftaProxyLoss,
                tailRoundTime,
                tailBusyTime,
                firstFtaRound,
                lastNonFtaRound,
                stopReason,
                series);
    }

    public double meanRoundTime() {
        return runtime / rounds;
    }

    /** Total worker time divided by rounds. */
    public double meanBusyTime() {
        return totalWorkerTime / rounds;
    }

    /** {@code (sum_t l(a_t, mu) - k l(a_FTA, mu)) / k} at the end of the run. */
    public double averageProxyRegret() {
        return (proxyLossSum - rounds * ftaProxyLoss) / rounds;
    }

    /** Share of the worker time spent on results that were not used. */
    public double wastedFraction() {
        return totalWorkerTime == 0 ? 0 : 1 - acceptedTime / totalWorkerTime;
    }

    public double finalObjective() {
        return series.objective().length == 0 ? Double.NaN : series.objective()[series.size() - 1];
    }

    /**
     * Per-round metrics at sampled rounds. {@code objective} is the suboptimality of the shared SGD
     * trajectory at that round (NaN when no problem is trained, as in a replay without one).
     */
    public record Series(
            long[] rounds,
            double[] runtime,
            double[] workerTime,
            double[] averageRoundTime,
            double[] averageProxyRegret,
            double[] objective) {
        public int size() {
            return rounds.length;
        }
    }
}
