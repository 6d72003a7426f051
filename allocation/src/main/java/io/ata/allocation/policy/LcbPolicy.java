package io.ata.allocation.policy;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.ExplorationRule;
import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.RoundRandom;
import io.ata.allocation.TaskDeadlines;
import io.ata.allocation.WorkerStats;
import java.util.List;
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
 *
 * <p>With an {@link OverheadModel}, the tasks go where they finish soonest end to end: worker
 * {@code i} given {@code a} tasks is expected to deliver its last result at
 * {@code c_i + a s_i + (a - 1) d_i}, with its learned per-round and per-task overheads
 * {@code c_i} and {@code d_i} next to its score, and the solver minimises the largest of these.
 *
 * <p>With {@link #withBackups backups}, each round runs under {@link TaskDeadlines} learned from
 * the workers' fits: an overdue task gets a backup copy elsewhere, and a worker whose task lost to
 * its backup is left out of the allocation (on {@link Probation}) until a probe task shows it is
 * back to its usual speed.
 */
public final class LcbPolicy extends FleetPolicy {
    /** The version of the learned state that holds the estimated width's estimator alone. */
    public static final int WIDTH_ONLY_VERSION = EstimatedRelativeWidth.State.VERSION;
    /** The version of the shared part of {@link #splitLearnedState()}, which a whole-state reader refuses. */
    public static final int SPLIT_SHARED_VERSION = LcbSplitState.SHARED_VERSION;

    private final ConfidenceWidth width;
    private final int tasksPerRound;
    private final long seed;
    private final AllocationSolver solver = new AllocationSolver();
    private final DriftDetector drift; // null: statistics never forget
    private final OverheadModel overhead; // null: compute time alone decides
    private BackupTasks backups; // null: every allocated task is waited for
    /** Per worker, the changes of its part of the learned state: see {@link #learnedParts()}. */
    private final ChangeCounts partChanges = new ChangeCounts();

    private final LearnedParts parts = new Parts();

    private double[] scores = new double[0];
    private int[] scoredWorkers = new int[0];
    private int[] unexplored = new int[0];
    private int[] zeroScore = new int[0];
    private int[] allocation = new int[0];
    private double[] offsets = new double[0];
    private boolean lastPlanExploited;

    public LcbPolicy(String name, WorkerStats stats, ConfidenceWidth width, int quota, int tasksPerRound, long seed) {
        this(name, stats, width, quota, tasksPerRound, seed, null, null);
    }

    /**
     * @param drift restarts a worker's statistics when its speed changes; null for plain ATA
     * @param overhead learns what a task costs beyond its compute time; null to allocate on
     *     compute time alone, as the paper's ATA
     */
    public LcbPolicy(
            String name,
            WorkerStats stats,
            ConfidenceWidth width,
            int quota,
            int tasksPerRound,
            long seed,
            DriftDetector drift,
            OverheadModel overhead) {
        super(name, name, stats, quota);
        this.drift = drift;
        this.overhead = overhead;
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
                + (drift != null ? " drift=cusum" : "")
                + (overhead != null ? " overhead-aware" : "")
                + (backups != null ? backups.describe() : "");
    }

    /**
     * Turns on backup tasks (call before the first round): overdue tasks get a backup copy, and
     * workers that lose tasks to their backups go on probation.
     *
     * @param deadlineFloor added to every deadline ({@link DeadlineRule}), in the statistics' unit
     * @return this policy
     */
    public LcbPolicy withBackups(double deadlineFloor) {
        if (tasksPerRound > batch) {
            throw new IllegalArgumentException("backup tasks need an exact plan (tasks per round = quota)");
        }
        this.backups = new BackupTasks(stats, deadlineFloor);
        return this;
    }

    /** The deadlines this policy's rounds run under, if it uses backup tasks. */
    @Override
    public Optional<TaskDeadlines> deadlines() {
        return Optional.ofNullable(backups);
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
        boolean probation = backups != null && backups.excludedCount() > 0 && someoneFree(n);
        if (backups != null && backups.excludedCount() > 0) {
            for (int i = 0; i < n; i++) {
                if (backups.excludes(i)) {
                    partChanges.changed(i); // its probes below move its next probe
                }
            }
        }
        for (int i = 0; i < n; i++) {
            if (!stats.isActive(i) || (probation && backups.excludes(i))) {
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
            solve(p);
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
        if (probation) {
            backups.addProbes(plan, round);
        }
        return plan;
    }

    /** True if some active worker is not on probation (if none is, probation is ignored). */
    private boolean someoneFree(int n) {
        for (int i = 0; i < n; i++) {
            if (stats.isActive(i) && !backups.excludes(i)) {
                return true;
            }
        }
        return false;
    }

    /** Allocates over the {@code p} scored workers, on end-to-end cost once overheads are known. */
    private void solve(int p) {
        if (overhead == null || !overhead.hasLearned()) {
            solver.solve(scores, p, tasksPerRound, allocation);
            return;
        }
        for (int j = 0; j < p; j++) {
            int w = scoredWorkers[j];
            double perTask = overhead.perTask(w);
            scores[j] += perTask;
            offsets[j] = overhead.perRound(w) - perTask;
        }
        solver.solve(scores, offsets, p, tasksPerRound, allocation);
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
        // what follows changes the parts of the round's workers (every duration's is listed), and of no other
        for (int k = 0; k < outcome.workerCount(); k++) {
            partChanges.changed(outcome.worker(k));
        }
        if (overhead != null) {
            overhead.observe(outcome);
        }
        if (backups != null) {
            // before the drift detector may restart the statistics: a stuck worker is judged
            // against what it was
            backups.observe(outcome);
        }
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

    /** The overhead model, if this policy allocates on end-to-end cost. */
    public Optional<OverheadModel> overhead() {
        return Optional.ofNullable(overhead);
    }

    /** The drift detector, if this policy re-learns changed workers. */
    public Optional<DriftDetector> drift() {
        return Optional.ofNullable(drift);
    }

    public ConfidenceWidth width() {
        return width;
    }

    /**
     * Everything this policy learns beyond the statistics, for workers {@code 0..n-1} of the
     * statistics: the estimated width's estimator, the drift detector, the probation of the backup
     * tasks and the overhead model, each that it has. Version 1 (the estimator alone, as
     * {@link EstimatedRelativeWidth.State#toBytes()}) when that is all it learns; otherwise version
     * 2, {@link LcbState}. Empty for a fixed width without any of them.
     */
    @Override
    public Optional<PolicyState> learnedState() {
        byte[] estimator = estimatorBytes();
        if (!learnsPerWorker()) {
            return estimator == null
                    ? Optional.empty()
                    : Optional.of(new PolicyState(name(), WIDTH_ONLY_VERSION, estimator));
        }
        int n = stats.size();
        LcbState state = new LcbState(
                estimator,
                drift == null ? null : drift.snapshot(n).toBytes(),
                backups == null ? null : backups.snapshot(n).toBytes(),
                overhead == null ? null : overhead.snapshot(n).toBytes());
        return Optional.of(new PolicyState(name(), LcbState.VERSION, state.toBytes()));
    }

    /**
     * Restores {@link #learnedState()} into a policy built like this one's writer over the restored
     * statistics (the same worker indexes). Every section is decoded and checked before any is
     * restored, so a refused state leaves this policy as it was. A component whose section is
     * absent (version 1 has only the width's) starts afresh, as after a restart before version 2.
     *
     * @throws IllegalArgumentException for another policy's state, an unknown version, malformed
     *     bytes, a section for a component this policy does not have, or a state naming workers
     *     beyond the statistics
     */
    @Override
    public void restoreLearnedState(PolicyState state) {
        state.requirePolicy(name());
        state.requireVersion(WIDTH_ONLY_VERSION, LcbState.VERSION);
        LcbState sections = state.version() == WIDTH_ONLY_VERSION
                ? new LcbState(state.bytes(), null, null, null)
                : LcbState.fromBytes(state.bytes());
        EstimatedRelativeWidth.State estimator = null;
        if (sections.width() != null) {
            if (!(width instanceof EstimatedRelativeWidth)) {
                throw new IllegalArgumentException(
                        name() + " has a fixed width; there is no estimator state to restore");
            }
            estimator = EstimatedRelativeWidth.State.fromBytes(sections.width());
            for (int w : estimator.sampleWorkers()) {
                if (w < 0 || w >= stats.size()) {
                    throw new IllegalArgumentException(name() + " state: its estimator has a sample of worker " + w
                            + ", not one of the statistics' " + stats.size());
                }
            }
        }
        DriftDetector.State driftState = null;
        if (sections.drift() != null) {
            requireComponent(drift != null, "drift detector");
            driftState = DriftDetector.State.fromBytes(sections.drift());
            requireWorkers(driftState.workers(), "its drift detector");
        }
        Probation.State probation = null;
        if (sections.probation() != null) {
            requireComponent(backups != null, "backup tasks' probation");
            probation = Probation.State.fromBytes(sections.probation());
            requireWorkers(probation.workers(), "its probation");
        }
        OverheadModel.State overheadState = null;
        if (sections.overhead() != null) {
            requireComponent(overhead != null, "overhead model");
            overheadState = OverheadModel.State.fromBytes(sections.overhead());
            requireWorkers(overheadState.workers(), "its overhead model");
        }
        // all checked: nothing below throws
        if (estimator != null) {
            ((EstimatedRelativeWidth) width).restore(estimator);
        }
        if (driftState != null) {
            drift.restore(driftState);
        }
        if (probation != null) {
            backups.restore(probation);
        }
        if (overheadState != null) {
            overhead.restore(overheadState);
        }
        partChanges.allChanged(stats.size());
    }

    /**
     * {@link #learnedState()} cut into the shared part (the estimated width, the drift detector's
     * alarm count, the overhead model's fleet estimates) and one part per worker (its drift test,
     * probation and overheads), as {@link LcbSplitState} encodes them, read in place. A worker's
     * part changes when it is in a round's outcome, or on probation when a round is planned (its
     * probes), or at a restore; its count grows then. Empty when this policy learns nothing per
     * worker (no drift detector, backups or overhead model).
     */
    @Override
    public Optional<LearnedParts> learnedParts() {
        return learnsPerWorker() ? Optional.of(parts) : Optional.empty();
    }

    /** {@link #learnedParts()} copied out. */
    @Override
    public Optional<SplitPolicyState> splitLearnedState() {
        return learnedParts().map(LearnedParts::copy);
    }

    /**
     * Restores {@link #splitLearnedState()}: decodes and checks the shared part and every worker's
     * part, joins them into the whole state, and restores that as {@link #restoreLearnedState}
     * does, with all its checks. A refused state leaves this policy as it was.
     *
     * @throws IllegalArgumentException for another policy's state, an unknown version, malformed
     *     or misshapen parts, a number of worker parts other than the statistics' size, whatever
     *     {@link #restoreLearnedState} refuses, or if this policy learns nothing per worker
     */
    @Override
    public void restoreSplitLearnedState(SplitPolicyState split) {
        if (!learnsPerWorker()) {
            throw SplitPolicyState.notSplitBy(name());
        }
        PolicyState shared = split.shared();
        shared.requirePolicy(name());
        shared.requireVersion(SPLIT_SHARED_VERSION);
        List<byte[]> parts = split.workers();
        if (parts.size() != stats.size()) {
            throw new IllegalArgumentException(name() + " split state has " + parts.size()
                    + " worker parts, but the statistics have " + stats.size() + " workers");
        }
        LcbState whole;
        try {
            whole = LcbSplitState.join(shared.bytes(), parts);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name() + " split state: " + e.getMessage(), e);
        }
        restoreLearnedState(new PolicyState(name(), LcbState.VERSION, whole.toBytes()));
    }

    /** {@link #learnedParts()}: this policy's components, read in place. */
    private final class Parts implements LearnedParts {
        @Override
        public int workers() {
            return stats.size();
        }

        @Override
        public PolicyState shared() {
            return LcbSplitState.shared(name(), estimatorBytes(), drift, backups, overhead);
        }

        @Override
        public byte[] worker(int w) {
            return LcbSplitState.worker(w, drift, backups, overhead);
        }

        @Override
        public long changes(int w) {
            return partChanges.of(w);
        }
    }

    /** True if this policy learns something per worker beyond the statistics: a state worth splitting. */
    private boolean learnsPerWorker() {
        return drift != null || backups != null || overhead != null;
    }

    /** The estimated width's state, or null for a fixed width. */
    private byte[] estimatorBytes() {
        return width instanceof EstimatedRelativeWidth estimated
                ? estimated.snapshot().toBytes()
                : null;
    }

    private void requireComponent(boolean present, String component) {
        if (!present) {
            throw new IllegalArgumentException(
                    name() + " state has a " + component + " section, but " + name() + " has no " + component);
        }
    }

    /** Refuses a state about more workers than the statistics have: its indexes would not be theirs. */
    private void requireWorkers(int workers, String where) {
        if (workers > stats.size()) {
            throw new IllegalArgumentException(name() + " state: " + where + " covers " + workers
                    + " workers, but the statistics have " + stats.size());
        }
    }

    private void ensureCapacity(int n) {
        if (scores.length < n) {
            scores = new double[n];
            scoredWorkers = new int[n];
            unexplored = new int[n];
            zeroScore = new int[n];
            allocation = new int[n];
            offsets = new double[n];
        }
    }
}
