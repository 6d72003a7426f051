package io.ata.lab.replay;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.lab.timinglog.TimingRecord;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Replays a live job's recorded timings through the simulator's policy code, round by round, to
 * check (or reproduce) the allocations the live broker made: same policy class, same seed, same
 * statistics folded the same way, so the same plan.
 *
 * <p>The fleet is fixed: {@code workerIds} in the broker's index order (the job's state lists it),
 * all active. Runs during which workers joined or left need their membership replayed too.
 */
public final class LiveRunReplay {
    private final List<String> workerIds;
    private final Map<String, Integer> index = new HashMap<>();
    private final WorkerStats stats;
    private final AllocationPolicy policy;

    public LiveRunReplay(
            String policyName,
            int batch,
            long seed,
            List<String> workerIds,
            ConstantConvention convention,
            double alpha,
            double eta,
            Map<String, Double> knownMeans) {
        this.workerIds = List.copyOf(workerIds);
        this.stats = new WorkerStats(workerIds.size());
        double[] known = new double[workerIds.size()];
        for (int i = 0; i < known.length; i++) {
            index.put(workerIds.get(i), i);
            known[i] = knownMeans.getOrDefault(workerIds.get(i), Double.NaN);
        }
        this.policy = PolicyFactory.create(
                policyName,
                new PolicyContext(workerIds.size(), batch, known, convention, alpha, eta, "replay"),
                seed,
                stats);
    }

    /** Tasks per worker id the policy gives in round {@code round} (greedy workers: -1). */
    public Map<String, Integer> plan(long round) {
        RoundPlan plan = policy.plan(round);
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int k = 0; k < plan.supportSize(); k++) {
            int w = plan.supportWorker(k);
            out.put(workerIds.get(w), plan.tasks(w) == RoundPlan.UNBOUNDED ? -1 : plan.tasks(w));
        }
        return out;
    }

    /**
     * Folds round {@code round}'s timings: completed and late tasks as durations, cancelled ones as
     * censored time. Records of other rounds must not be passed.
     */
    public void observe(long round, List<TimingRecord> timings) {
        double[] unknown = new double[timings.size()];
        Arrays.fill(unknown, Double.NaN);
        observe(round, timings, unknown);
    }

    /**
     * As {@link #observe(long, List)}, with when each result reached the trainer, from the round's
     * open ({@code arrivals[k]} for {@code timings.get(k)}, NaN if unknown), as the live broker
     * learns the overheads from them: the timings of the round's CLOSED event, in its order.
     */
    public void observe(long round, List<TimingRecord> timings, double[] arrivals) {
        if (arrivals.length != timings.size()) {
            throw new IllegalArgumentException(
                    "round " + round + ": " + arrivals.length + " arrivals for " + timings.size() + " timings");
        }
        RoundOutcome outcome = new RoundOutcome(workerIds.size());
        outcome.reset(round, workerIds.size());
        for (int k = 0; k < timings.size(); k++) {
            TimingRecord t = timings.get(k);
            Integer i = index.get(t.worker());
            if (i == null) {
                throw new IllegalArgumentException(
                        "round " + round + ": worker " + t.worker() + " is not in the fleet");
            }
            switch (t.status()) {
                case COMPLETED -> outcome.addCompleted(i, t.duration(), true, arrivals[k]);
                case LATE -> outcome.addCompleted(i, t.duration(), false, arrivals[k]);
                case CANCELLED -> outcome.addCancelled(i, t.duration());
            }
        }
        outcome.foldInto(stats);
        policy.observe(outcome);
    }

    public WorkerStats stats() {
        return stats;
    }
}
