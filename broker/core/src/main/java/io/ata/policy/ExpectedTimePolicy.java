package io.ata.policy;

import io.ata.core.AllocationSolver;
import io.ata.core.RoundOutcome;
import io.ata.core.RoundPlan;
import io.ata.core.WorkerStats;
import java.util.Arrays;
import java.util.HashMap;
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
 */
public final class ExpectedTimePolicy implements AllocationPolicy {
    private static final int EXTRA_CANDIDATES = 4;
    private static final long FIRST_REFRESH = 1024;
    private static final long MAX_REFRESH_INTERVAL = 1 << 17;
    /** Below this many observations a worker's shape is not trusted and its tasks are left to the base policy. */
    static final long MIN_SAMPLES = 32;

    private final LcbPolicy base;
    private final WorkerStats stats;
    private final int batch;
    private final RoundPlan plan;
    private final AllocationSolver solver = new AllocationSolver();
    private final Map<String, int[][]> refinedByBase = new HashMap<>();
    private long nextRefresh = FIRST_REFRESH;
    private int[] frozenPairs = new int[16];
    private int[] lastFrozenPairs = new int[0];
    private int[][] lastRefined;
    private RoundTimeModel model;
    private long membershipVersion = -1;
    private long refinements;

    public ExpectedTimePolicy(LcbPolicy base, int batch) {
        this.base = base;
        this.stats = base.stats();
        this.batch = batch;
        this.plan = new RoundPlan(stats.size());
    }

    @Override
    public String name() {
        return "ata-ert";
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
            String key = Arrays.toString(Arrays.copyOf(frozenPairs, 2 * frozen));
            refined = refinedByBase.get(key);
            if (refined == null) {
                refined = refine(basePlan);
                refinedByBase.put(key, refined);
            }
            lastFrozenPairs = Arrays.copyOf(frozenPairs, 2 * frozen);
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

    /**
     * The base policy's state, under this policy's name: same version, same bytes. The refinement
     * cache is not part of it; a restored policy rebuilds it from the statistics.
     */
    @Override
    public Optional<PolicyState> learnedState() {
        return base.learnedState().map(state -> new PolicyState(name(), state.version(), state.bytes()));
    }

    /** Restores the base policy's estimator; refinements are recomputed from the statistics. */
    @Override
    public void restoreLearnedState(PolicyState state) {
        state.requirePolicy(name());
        try {
            base.restoreLearnedState(new PolicyState(base.name(), state.version(), state.bytes()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    name() + ", restoring its base " + base.name() + ": " + e.getMessage(), e);
        }
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
        RoundTimeModel fresh = new RoundTimeModel(w -> TimeFit.of(stats, w));
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
