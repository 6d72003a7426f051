package io.ata.policy;

import io.ata.core.AllocationSolver;
import io.ata.core.ExplorationRule;
import io.ata.core.RoundOutcome;
import io.ata.core.RoundPlan;
import io.ata.core.RoundRandom;
import io.ata.core.WorkerStats;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * ATA and its relatives: each round, score every worker by a lower confidence bound on its mean
 * task time and give the tasks to the workers that the scores say finish them soonest
 * ({@code argmin max_i a_i s_i}); workers whose bound is still at zero are explored first
 * ({@link ExplorationRule}). The {@link ConfidenceWidth} decides the variant: ATA (absolute
 * width), ATA-Empirical (relative width), or a width whose constant is estimated from the data.
 *
 * <p>With {@code tasksPerRound > quota} the plan is hedged: {@code B + r} tasks are queued and
 * the first {@code B} results win (the time/cost knob between ATA and greedy collection).
 *
 * <p>With a {@link DriftDetector}, a worker whose speed changes has its statistics restarted, so
 * the policy re-learns it instead of averaging the old speed with the new one for ever; and a
 * worker with a single sample is explored once more (a second opinion), so that one outlier
 * cannot keep a worker idle for good.
 */
public final class LcbPolicy extends FleetPolicy {
    private final ConfidenceWidth width;
    private final int tasksPerRound;
    private final long seed;
    private final AllocationSolver solver = new AllocationSolver();
    private final DriftDetector drift; // null: statistics never forget

    private double[] scores = new double[0];
    private int[] scoredWorkers = new int[0];
    private int[] unexplored = new int[0];
    private int[] zeroScore = new int[0];
    private int[] allocation = new int[0];
    private boolean lastPlanExploited;

    public LcbPolicy(String name, WorkerStats stats, ConfidenceWidth width, int quota, int tasksPerRound, long seed) {
        this(name, stats, width, quota, tasksPerRound, seed, null);
    }

    /** @param drift restarts a worker's statistics when its speed changes; null for plain ATA */
    public LcbPolicy(
            String name,
            WorkerStats stats,
            ConfidenceWidth width,
            int quota,
            int tasksPerRound,
            long seed,
            DriftDetector drift) {
        super(name, name, stats, quota);
        this.drift = drift;
        if (quota <= 0 || tasksPerRound < quota) {
            throw new IllegalArgumentException("need 0 < quota <= tasksPerRound, got " + quota + ", " + tasksPerRound);
        }
        this.width = width;
        this.tasksPerRound = tasksPerRound;
        this.seed = seed;
    }

    @Override
    public String describe() {
        return width.describe()
                + (tasksPerRound > batch ? " tasks=" + tasksPerRound + " keep-first=" + batch : "")
                + (drift != null ? " drift=cusum" : "");
    }

    public WorkerStats stats() {
        return stats;
    }

    @Override
    public RoundPlan plan(long round) {
        int n = stats.size();
        ensureCapacity(n);
        double logTerm = Math.log(2.0) + 2 * Math.log(round); // L = ln(2 k^2)
        double c = width.constant();
        ConfidenceWidth.Form form = width.form();
        int u = 0;
        int z = 0;
        int p = 0;
        for (int i = 0; i < n; i++) {
            if (!stats.isActive(i)) {
                continue;
            }
            long k = stats.count(i);
            if (k == 0 || (k == 1 && drift != null)) {
                // With drift handling one sample is not enough to rule a worker out: a cold-start
                // outlier (JIT, caches, data loading) would keep it idle for good. It gets a second.
                unexplored[u++] = i;
                continue;
            }
            double s = form.score(stats.mean(i), c * ConfidenceWidth.shape(logTerm, k));
            if (s > 0) {
                scores[p] = s;
                scoredWorkers[p++] = i;
            } else {
                zeroScore[z++] = i;
            }
        }
        plan.reset(round, batch, n);
        lastPlanExploited = u == 0 && z == 0;
        if (lastPlanExploited) {
            if (p == 0) {
                throw new IllegalStateException("no active worker in round " + round);
            }
            solver.solve(scores, p, tasksPerRound, allocation);
            for (int j = 0; j < p; j++) {
                plan.add(scoredWorkers[j], allocation[j]);
            }
        } else {
            SplittableRandom rng = RoundRandom.of(seed, round, RoundRandom.EXPLORATION);
            ExplorationRule.allocate(
                    plan,
                    tasksPerRound,
                    rng,
                    unexplored,
                    u,
                    zeroScore,
                    z,
                    scores,
                    scoredWorkers,
                    p,
                    solver,
                    allocation);
        }
        return plan;
    }

    /** True if the last plan came from the solver alone: every active worker had a positive score. */
    public boolean lastPlanExploited() {
        return lastPlanExploited;
    }

    /**
     * The statistics are folded by the caller; here the drift detector may restart a worker's,
     * and a data-driven width learns.
     */
    @Override
    public void observe(RoundOutcome outcome) {
        if (drift != null) {
            drift.observe(stats, outcome);
            if (width instanceof EstimatedRelativeWidth estimated) {
                for (int i = 0; i < drift.restartedCount(); i++) {
                    estimated.forget(drift.restarted(i));
                }
            }
        }
        width.observe(stats, outcome);
    }

    /** The drift detector, if this policy re-learns changed workers. */
    public Optional<DriftDetector> drift() {
        return Optional.ofNullable(drift);
    }

    public ConfidenceWidth width() {
        return width;
    }

    /** With an estimated width: its estimator, as {@link EstimatedRelativeWidth.State#toBytes()}. */
    @Override
    public Optional<PolicyState> learnedState() {
        if (!(width instanceof EstimatedRelativeWidth estimated)) {
            return Optional.empty();
        }
        return Optional.of(new PolicyState(
                name(),
                EstimatedRelativeWidth.State.VERSION,
                estimated.snapshot().toBytes()));
    }

    @Override
    public void restoreLearnedState(PolicyState state) {
        state.requirePolicy(name());
        if (!(width instanceof EstimatedRelativeWidth estimated)) {
            throw new IllegalArgumentException(name() + " has a fixed width; there is no estimator state to restore");
        }
        state.requireVersion(EstimatedRelativeWidth.State.VERSION);
        estimated.restore(EstimatedRelativeWidth.State.fromBytes(state.bytes()));
    }

    private void ensureCapacity(int n) {
        if (scores.length < n) {
            scores = new double[n];
            scoredWorkers = new int[n];
            unexplored = new int[n];
            zeroScore = new int[n];
            allocation = new int[n];
        }
    }
}
