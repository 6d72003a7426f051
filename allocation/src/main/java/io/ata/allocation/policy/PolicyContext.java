package io.ata.allocation.policy;

/**
 * What a policy may be told about the fleet it allocates for.
 *
 * @param workers    fleet size {@code n}
 * @param batch      tasks per round {@code B}
 * @param trueMeans  per-worker mean task times for the oracle policies (FTA, proportional) and for
 *                   the {@code experiments} constants; from the time model in a simulation, from the
 *                   whole log (hindsight) in a replay, from the job's configuration live (NaN for a
 *                   worker whose mean is not known); null when unknown
 * @param convention which constants ATA and ATA-Empirical use
 * @param alpha      ATA's sub-exponential bound (paper convention), or NaN if not given
 * @param eta        ATA-Empirical's relative bound (paper convention), or NaN if not given
 * @param constantsSource where alpha and eta came from, for reports ("user", "time model", "log")
 */
public record PolicyContext(
        int workers,
        int batch,
        double[] trueMeans,
        ConstantConvention convention,
        double alpha,
        double eta,
        String constantsSource) {

    public PolicyContext {
        if (batch > 1 << 30) {
            throw new IllegalArgumentException("batch " + batch + " is beyond the supported 2^30 tasks per round");
        }
        if (workers < 0 || batch <= 0) {
            throw new IllegalArgumentException("need workers >= 0 and batch > 0, got " + workers + ", " + batch);
        }
        if (trueMeans != null && trueMeans.length != workers) {
            throw new IllegalArgumentException(
                    "trueMeans has " + trueMeans.length + " entries for " + workers + " workers");
        }
    }

    public double maxTrueMean() {
        double max = 0;
        for (double m : requireMeans("the experiments constants")) {
            if (Double.isFinite(m)) {
                max = Math.max(max, m); // unknown means (NaN) do not count
            }
        }
        if (!(max > 0)) {
            throw new IllegalArgumentException("the experiments constants need at least one known mean task time");
        }
        return max;
    }

    public double[] requireMeans(String who) {
        if (trueMeans == null) {
            throw new IllegalArgumentException(who + " need(s) the workers' true mean times, which are unknown here");
        }
        return trueMeans;
    }
}
