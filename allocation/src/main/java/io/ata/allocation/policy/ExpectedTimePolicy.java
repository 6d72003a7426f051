package io.ata.allocation.policy;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Minimises the expected round time {@code E[C(a)] = E[max_i sum of a_i task times]} itself,
 * rather than ATA's proxy {@code max_i a_i mu_i}.
 *
 * <p>The proxy ignores the spread of task times: under the linear model its optimum puts one task
 * on each of several slow workers whose exponential tails often decide the round (mean round
 * time ~780 against a proxy value of 522), while moving those tasks to fast workers gives ~730.
 * This policy learns and explores exactly like ATA with an estimated {@code eta}
 * ({@code ata-auto}); the tasks that allocation gives to well-observed workers are re-placed by
 * local search on the expected round time, predicted from the learned per-worker distributions: each worker's task
 * time is fitted by a shifted Gamma with the observed mean, variance and skew (exact for the
 * shifted exponentials of the paper's models; a three-moment approximation otherwise), the sum
 * of {@code a} tasks is then a shifted Gamma too, and {@code E[max] = integral of 1 - prod_i F_i}
 * ({@link TimeFit}, {@link RoundTimeModel}).
 *
 * <p>Moves never raise the predicted busy time {@code sum a_i mu_hat_i} above that of the
 * proxy-optimal allocation for the learned means, so the extra speed is not bought with extra
 * worker time. Refinements
 * are cached per base allocation and recomputed on a doubling schedule as statistics sharpen.
 *
 * <p>The cache depends on the statistics of the rounds it was built in, so it is part of the
 * learned state ({@link ExpectedTimeState}, version 2): a restored policy plans exactly as the one
 * that never stopped, over the same live workers. Liveness set after the restore counts as a change
 * of fleet, which clears the cache at the next plan (a caller that does not store liveness, as the
 * broker, makes a restored policy plan afresh once). Version 1 held the base policy's state only,
 * and a policy restored from it rebuilds its cache from the statistics at its next plan.
 *
 * <p>The state is kept whole ({@link #splitLearnedState()} is empty): the base learns only its
 * width, which belongs to no worker, and its cache of refined plans belongs to the fleet as a whole.
 */
public final class ExpectedTimePolicy extends FleetPolicy {
    private static final int EXTRA_CANDIDATES = 4;
    private static final long FIRST_REFRESH = 1024;
    private static final long MAX_REFRESH_INTERVAL = 1 << 17;
    /** Below this many observations a worker's shape is not trusted and its tasks are left to the base policy. */
    static final long MIN_SAMPLES = 32;
    /** The learned state that carried the base policy's state only. */
    private static final int BASE_ONLY_VERSION = 1;
    /** A membership version no statistics have: the cache is checked against the fleet at the next plan. */
    private static final long MEMBERSHIP_UNSEEN = -1;

    private final LcbPolicy base;
    private final AllocationSolver solver = new AllocationSolver();
    /** Refined plans by the frozen part of the base plan, in the order they were computed. */
    private final Map<FrozenPart, int[][]> refinedByBase = new LinkedHashMap<>();

    private long nextRefresh = FIRST_REFRESH;
    private int[] frozenPairs = new int[16];
    private int[] lastFrozenPairs = new int[0];
    private int[][] lastRefined;
    private RoundTimeModel model;
    /** The statistics' membership version when the cache was last checked against the fleet. */
    private long membershipVersion = MEMBERSHIP_UNSEEN;

    private long refinements;

    public ExpectedTimePolicy(LcbPolicy base, int batch) {
        super("ata-ert", "ata-ert", base.stats(), batch);
        this.base = base;
    }

    @Override
    public String describe() {
        return "expected-round-time refinement of ata-auto (" + base.describe() + "), " + refinements + " refinements";
    }

    @Override
    public RoundPlan plan(long round) {
        RoundPlan basePlan = base.plan(round);
        if (!base.lastPlanExploited()) {
            return basePlan;
        }
        if (round >= nextRefresh || stats.membershipVersion() != membershipVersion) {
            membershipVersion = stats.membershipVersion(); // the fleet changed: cached plans may name gone workers
            refinedByBase.clear();
            lastRefined = null;
            model = null;
            nextRefresh = round + Math.min(round, MAX_REFRESH_INTERVAL);
        }
        // The refinement depends on the base plan only through its frozen (exploration) tasks.
        int frozen = frozenPart(basePlan);
        int[][] refined;
        if (lastRefined != null && sameFrozenPartAsLast(frozen)) {
            refined = lastRefined; // the common case: no allocation, no lookup
        } else {
            FrozenPart key = new FrozenPart(Arrays.copyOf(frozenPairs, 2 * frozen));
            refined = refinedByBase.get(key);
            if (refined == null) {
                refined = refine(basePlan);
                refinedByBase.put(key, refined);
            }
            lastFrozenPairs = key.pairs();
            lastRefined = refined;
        }
        plan.reset(round, batch, stats.size());
        for (int k = 0; k < refined[0].length; k++) {
            plan.add(refined[0][k], refined[1][k]);
        }
        return plan;
    }

    @Override
    public void observe(RoundOutcome outcome) {
        base.observe(outcome);
    }

    /** Version 2: the base policy's state and the refinement cache, as {@link ExpectedTimeState}. */
    @Override
    public Optional<PolicyState> learnedState() {
        return base.learnedState()
                .map(baseState -> new PolicyState(
                        name(), ExpectedTimeState.VERSION, snapshot(baseState).toBytes()));
    }

    /**
     * Version 2 restores the base policy's state and the cache; version 1 (the base policy's state
     * only) leaves the cache to be rebuilt from the statistics at the next plan.
     */
    @Override
    public void restoreLearnedState(PolicyState state) {
        state.requirePolicy(name());
        state.requireVersion(BASE_ONLY_VERSION, ExpectedTimeState.VERSION);
        if (state.version() == BASE_ONLY_VERSION) {
            restoreBase(BASE_ONLY_VERSION, state.bytes()); // then the base's state had version 1 too
        } else {
            restore(ExpectedTimeState.fromBytes(state.bytes()));
        }
    }

    private ExpectedTimeState snapshot(PolicyState baseState) {
        List<ExpectedTimeState.Refinement> refined = new ArrayList<>();
        refinedByBase.forEach((part, p) -> refined.add(new ExpectedTimeState.Refinement(part.pairs(), p[0], p[1])));
        return new ExpectedTimeState(
                baseState.version(),
                baseState.bytes(),
                nextRefresh,
                refinements,
                stats.membershipVersion() != membershipVersion,
                refined,
                lastRefined == null ? null : lastFrozenPairs,
                model == null ? null : model.snapshot());
    }

    private void restore(ExpectedTimeState state) {
        Map<FrozenPart, int[][]> cache = new LinkedHashMap<>();
        for (ExpectedTimeState.Refinement r : state.refined()) {
            requireFrozenPart(r.frozenPairs());
            requireWorkers(r.workers(), "a refined plan");
            cache.put(new FrozenPart(r.frozenPairs()), new int[][] {r.workers(), r.tasks()});
        }
        int[][] last = null;
        if (state.lastFrozenPairs() != null) {
            last = cache.get(new FrozenPart(state.lastFrozenPairs()));
            if (last == null) {
                throw new IllegalArgumentException(name() + " state: the last plan's frozen part has no refined plan");
            }
        }
        if (state.model() != null) {
            requireWorkers(state.model().workers(), "the time model");
        }
        restoreBase(state.baseVersion(), state.baseBytes());
        refinedByBase.clear();
        refinedByBase.putAll(cache);
        lastFrozenPairs = last == null ? new int[0] : state.lastFrozenPairs();
        lastRefined = last;
        nextRefresh = state.nextRefresh();
        refinements = state.refinements();
        // the restored statistics count membership versions afresh: what carries over is whether it changed
        membershipVersion = state.membershipChanged() ? MEMBERSHIP_UNSEEN : stats.membershipVersion();
        model = state.model() == null ? null : new RoundTimeModel(this::fitOf, state.model());
    }

    private void restoreBase(int version, byte[] bytes) {
        try {
            base.restoreLearnedState(new PolicyState(base.name(), version, bytes));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    name() + ", restoring its base " + base.name() + ": " + e.getMessage(), e);
        }
    }

    private void requireFrozenPart(int[] pairs) {
        if (pairs.length % 2 != 0) {
            throw new IllegalArgumentException(
                    name() + " state: a frozen part of " + pairs.length + " ints, not pairs");
        }
        for (int k = 0; k < pairs.length; k += 2) {
            requireWorker(pairs[k], "a frozen part");
        }
    }

    private void requireWorkers(int[] workers, String where) {
        for (int w : workers) {
            requireWorker(w, where);
        }
    }

    private void requireWorker(int worker, String where) {
        if (worker < 0 || worker >= stats.size()) {
            throw new IllegalArgumentException(name() + " state: " + where + " names worker " + worker
                    + ", not one of the fleet's " + stats.size());
        }
    }

    private TimeFit fitOf(int worker) {
        return TimeFit.of(stats, worker);
    }

    /** Writes (worker, tasks) of the base plan's barely-observed workers into frozenPairs. */
    private int frozenPart(RoundPlan p) {
        if (frozenPairs.length < 2 * p.supportSize()) {
            frozenPairs = new int[4 * p.supportSize()];
        }
        int frozen = 0;
        for (int k = 0; k < p.supportSize(); k++) {
            int w = p.supportWorker(k);
            if (stats.count(w) < MIN_SAMPLES) {
                frozenPairs[2 * frozen] = w;
                frozenPairs[2 * frozen + 1] = p.tasks(w);
                frozen++;
            }
        }
        return frozen;
    }

    private boolean sameFrozenPartAsLast(int frozen) {
        if (lastFrozenPairs.length != 2 * frozen) {
            return false;
        }
        for (int k = 0; k < lastFrozenPairs.length; k++) {
            if (lastFrozenPairs[k] != frozenPairs[k]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Returns {workers[], tasks[]} of the improved allocation. Tasks the base plan puts on workers
     * with fewer than {@link #MIN_SAMPLES} observations are kept as they are: that is the base
     * policy exploring, and overriding it would starve it of the samples it asks for. The other
     * tasks are re-placed among well-observed workers: starting from the proxy-optimal allocation
     * for their learned means, single-task moves are taken while they lower the predicted round
     * time without raising the predicted busy time above the start's.
     */
    private int[][] refine(RoundPlan basePlan) {
        refinements++;
        if (model == null) {
            model = newModel();
        }
        int[] candidates = candidates(basePlan);
        int m = candidates.length;
        TimeFit[] fits = new TimeFit[m];
        int[] a = new int[m];
        boolean[] frozen = new boolean[m];
        int frozenTasks = 0;
        for (int k = 0; k < m; k++) {
            int w = candidates[k];
            fits[k] = model.fit(w);
            if (stats.count(w) < MIN_SAMPLES) {
                frozen[k] = true;
                a[k] = basePlan.tasks(w);
                frozenTasks += a[k];
            }
        }
        int free = batch - frozenTasks;
        int freeWorkers = 0;
        double[] freeMeans = new double[m];
        int[] freeIndex = new int[m];
        for (int k = 0; k < m; k++) {
            if (!frozen[k]) {
                freeMeans[freeWorkers] = fits[k].mean;
                freeIndex[freeWorkers++] = k;
            }
        }
        if (free > 0 && freeWorkers > 0) {
            int[] start = new int[freeWorkers];
            solver.solve(freeMeans, freeWorkers, free, start);
            for (int f = 0; f < freeWorkers; f++) {
                a[freeIndex[f]] = start[f];
            }
        } else if (free > 0) {
            return copyOf(basePlan); // nothing well observed yet
        }
        double budget = 0;
        for (int k = 0; k < m; k++) {
            budget += a[k] * fits[k].mean;
        }
        localSearch(model, candidates, fits, frozen, a, budget);
        int support = 0;
        for (int x : a) {
            support += x > 0 ? 1 : 0;
        }
        int[][] result = new int[2][support];
        int s = 0;
        for (int k = 0; k < m; k++) {
            if (a[k] > 0) {
                result[0][s] = candidates[k];
                result[1][s++] = a[k];
            }
        }
        return result;
    }

    /**
     * A model for the current refresh period. Its grid reaches well past the round time of the
     * proxy-optimal allocation over the well-observed workers, the region every refinement explores.
     */
    private RoundTimeModel newModel() {
        RoundTimeModel fresh = new RoundTimeModel(this::fitOf);
        int n = stats.size();
        int[] observed = new int[n];
        double[] means = new double[n];
        int o = 0;
        for (int i = 0; i < n; i++) {
            if (stats.isActive(i) && stats.count(i) >= MIN_SAMPLES) {
                means[o] = stats.mean(i);
                observed[o++] = i;
            }
        }
        double horizon = 0;
        if (o > 0) {
            int[] a = new int[o];
            solver.solve(means, o, batch, a);
            for (int k = 0; k < o; k++) {
                if (a[k] > 0) {
                    horizon = Math.max(horizon, fresh.fit(observed[k]).upperQuantile(a[k] + 2));
                }
            }
        }
        fresh.setHorizon(1.5 * horizon);
        return fresh;
    }

    /** Best-improvement single-task moves between non-frozen workers, within the busy budget. */
    private static void localSearch(
            RoundTimeModel model, int[] workers, TimeFit[] fits, boolean[] frozen, int[] a, double budget) {
        int m = a.length;
        double current = model.expectedMax(workers, a);
        double busy = 0;
        for (int k = 0; k < m; k++) {
            busy += a[k] * fits[k].mean;
        }
        while (true) {
            int bestFrom = -1;
            int bestTo = -1;
            double bestValue = current;
            for (int from = 0; from < m; from++) {
                if (a[from] == 0 || frozen[from]) {
                    continue;
                }
                for (int to = 0; to < m; to++) {
                    if (to == from || frozen[to]) {
                        continue;
                    }
                    if (busy - fits[from].mean + fits[to].mean > budget * (1 + 1e-12)) {
                        continue;
                    }
                    a[from]--;
                    a[to]++;
                    double value = model.expectedMax(workers, a);
                    a[from]++;
                    a[to]--;
                    if (value < bestValue * (1 - 1e-9)) {
                        bestValue = value;
                        bestFrom = from;
                        bestTo = to;
                    }
                }
            }
            if (bestFrom < 0) {
                return;
            }
            a[bestFrom]--;
            a[bestTo]++;
            busy += fits[bestTo].mean - fits[bestFrom].mean;
            current = bestValue;
        }
    }

    /** The (worker, tasks) pairs of a base plan's frozen part: the key of its refined plan. */
    private record FrozenPart(int[] pairs) {
        @Override
        public boolean equals(Object other) {
            return other instanceof FrozenPart that && Arrays.equals(pairs, that.pairs);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(pairs);
        }
    }

    private static int[][] copyOf(RoundPlan p) {
        int[][] result = new int[2][p.supportSize()];
        for (int k = 0; k < p.supportSize(); k++) {
            result[0][k] = p.supportWorker(k);
            result[1][k] = p.tasks(result[0][k]);
        }
        return result;
    }

    /**
     * The base plan's barely-observed workers (their tasks stay) plus the fastest well-observed
     * workers: enough that the proxy-optimal allocation and its neighbours are all among them.
     */
    private int[] candidates(RoundPlan basePlan) {
        int n = stats.size();
        Integer[] observed = new Integer[n];
        int o = 0;
        for (int i = 0; i < n; i++) {
            if (stats.isActive(i) && stats.count(i) >= MIN_SAMPLES) {
                observed[o++] = i;
            }
        }
        Arrays.sort(observed, 0, o, (x, y) -> Double.compare(stats.mean(x), stats.mean(y)));
        int frozen = frozenPart(basePlan);
        int extra = Math.min(batch + EXTRA_CANDIDATES, o);
        int[] c = new int[frozen + extra];
        for (int k = 0; k < frozen; k++) {
            c[k] = frozenPairs[2 * k];
        }
        for (int k = 0; k < extra; k++) {
            c[frozen + k] = observed[k];
        }
        return c;
    }
}
