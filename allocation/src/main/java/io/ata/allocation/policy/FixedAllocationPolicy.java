package io.ata.allocation.policy;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.util.Arrays;

/**
 * An allocation computed from known mean task times, the same every round while the fleet does
 * not change. With the proxy-optimal rule this is FTA, the oracle ATA is measured against; with
 * speed-proportional shares it is the static proportional allocation of Chao, Liao and Gao.
 *
 * <p>Only active workers with a known mean take part. When a worker joins, leaves or gets a mean,
 * the allocation is recomputed for the new stats.
 */
public final class FixedAllocationPolicy extends FleetPolicy {

    /** How the known means become an allocation. */
    public enum Rule {
        /** {@code argmin max_i a_i mu_i}: FTA. */
        PROXY_OPTIMAL,
        /** {@code a_i} proportional to {@code 1/mu_i}, largest remainders. */
        PROPORTIONAL
    }

    private final Rule rule;
    private double[] knownMeans;
    private final AllocationSolver solver = new AllocationSolver();
    private int[] allocation = new int[0];
    private boolean[] computedFor = new boolean[0];
    private double proxyValue = Double.NaN;

    public FixedAllocationPolicy(String name, Rule rule, WorkerStats fleet, int batch, double[] knownMeans) {
        super(name, name, fleet, batch);
        this.rule = rule;
        this.knownMeans = knownMeans.clone();
    }

    /** FTA over {@code knownMeans.length} always-active workers (the simulator's case). */
    public static FixedAllocationPolicy fta(double[] knownMeans, int batch) {
        return new FixedAllocationPolicy(
                "fta", Rule.PROXY_OPTIMAL, new WorkerStats(knownMeans.length), batch, knownMeans);
    }

    public static FixedAllocationPolicy proportional(double[] knownMeans, int batch) {
        return new FixedAllocationPolicy(
                "proportional", Rule.PROPORTIONAL, new WorkerStats(knownMeans.length), batch, knownMeans);
    }

    /** Sets or changes the known mean of {@code worker} (NaN: unknown, the worker gets no task). */
    public void setKnownMean(int worker, double mean) {
        if (worker >= knownMeans.length) {
            int old = knownMeans.length;
            knownMeans = Arrays.copyOf(knownMeans, Math.max(worker + 1, old * 2));
            Arrays.fill(knownMeans, old, knownMeans.length, Double.NaN);
        }
        knownMeans[worker] = mean;
        computedFor = new boolean[0]; // force a recomputation
    }

    @Override
    public void workerAdded(int worker, double knownMean) {
        setKnownMean(worker, knownMean);
    }

    /** The current allocation, dense over the fleet (computing it if the fleet changed). */
    public int[] allocation() {
        refreshIfFleetChanged();
        return Arrays.copyOf(allocation, stats.size());
    }

    @Override
    public String describe() {
        return rule == Rule.PROXY_OPTIMAL
                ? String.format("oracle means, proxy value %.6g", proxyValue)
                : "shares proportional to known speeds";
    }

    @Override
    public RoundPlan plan(long round) {
        refreshIfFleetChanged();
        plan.reset(round, batch, stats.size());
        for (int i = 0; i < stats.size(); i++) {
            plan.add(i, allocation[i]);
        }
        return plan;
    }

    private boolean usable(int i) {
        return stats.isActive(i) && i < knownMeans.length && knownMeans[i] > 0 && Double.isFinite(knownMeans[i]);
    }

    private void refreshIfFleetChanged() {
        int n = stats.size();
        boolean changed = computedFor.length != n;
        for (int i = 0; i < n && !changed; i++) {
            changed = computedFor[i] != usable(i);
        }
        if (!changed) {
            return;
        }
        computedFor = new boolean[n];
        int[] members = new int[n];
        double[] means = new double[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            computedFor[i] = usable(i);
            if (computedFor[i]) {
                members[m] = i;
                means[m++] = knownMeans[i];
            }
        }
        if (m == 0) {
            throw new IllegalStateException(name() + " needs at least one active worker with a known mean time");
        }
        int[] shares = new int[m];
        if (rule == Rule.PROXY_OPTIMAL) {
            proxyValue = solver.solve(means, m, batch, shares);
        } else {
            ProportionalShares.allocate(means, null, m, batch, shares);
        }
        allocation = new int[n];
        for (int k = 0; k < m; k++) {
            allocation[members[k]] = shares[k];
        }
    }

    @Override
    public void observe(RoundOutcome outcome) {
        // fixed: nothing to learn
    }
}
