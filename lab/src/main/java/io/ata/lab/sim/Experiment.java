package io.ata.lab.sim;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.workloads.QuadraticProblem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * Runs every policy for every seed over the same task durations and the same SGD trajectory, in
 * parallel (one run per thread), and groups the results by policy.
 *
 * <p>Seed {@code s} fixes each worker's sequence of durations (shared by all policies, so they
 * are compared on identical luck), the SGD noise, and each policy's tie-breaking.
 */
public final class Experiment {

    /**
     * @param durationsForSeed a fresh duration source for a seed (model draws or a replayed log)
     * @param problem          the problem trained alongside, or null for none
     * @param threads          parallel runs; 1 for a single thread
     * @param ages             the statistics' ages every policy runs with, each a run of its own:
     *                         {@code [FRESH]} normally; a stale run's results are labelled
     *                         {@link StatisticsAge#label}
     */
    public record Setup(
            PolicyContext context,
            List<String> policies,
            long rounds,
            long firstSeed,
            int seeds,
            LongFunction<DurationSource> durationsForSeed,
            QuadraticProblem problem,
            int threads,
            List<StatisticsAge> ages) {
        public Setup {
            if (rounds <= 0 || seeds <= 0 || threads <= 0) {
                throw new IllegalArgumentException("rounds, seeds and threads must be > 0");
            }
            if (ages.isEmpty()) {
                throw new IllegalArgumentException("at least one statistics age");
            }
            policies = List.copyOf(policies);
            ages = List.copyOf(ages);
        }
    }

    private Experiment() {}

    /**
     * Progress in the units a caller counts, {@code policies x seeds x rounds}, when every policy
     * runs once per statistics age: each of the {@code runsPerPolicy} runs counts its share.
     */
    private static LongConsumer scaled(LongConsumer progress, int runsPerPolicy) {
        if (progress == null || runsPerPolicy == 1) {
            return progress;
        }
        AtomicLong rounds = new AtomicLong();
        return done -> {
            long after = rounds.addAndGet(done);
            long before = after - done;
            long step = after / runsPerPolicy - before / runsPerPolicy;
            if (step > 0) {
                progress.accept(step);
            }
        };
    }

    /** Results per policy, in the order the policies were given, one entry per seed. */
    public static Map<String, List<RunResult>> run(Setup setup, LongConsumer progressPerPolicy) {
        PolicyContext context = setup.context();
        LongConsumer progress = scaled(progressPerPolicy, setup.ages().size());
        int[] fta = null;
        if (context.trueMeans() != null) {
            fta = new int[context.workers()];
            new AllocationSolver().solve(context.trueMeans(), context.workers(), context.batch(), fta);
        }
        PolicyRun runner = new PolicyRun(context.workers(), context.batch(), context.trueMeans(), fta);
        long[] sampled = SeriesSampler.rounds(setup.rounds());
        ExecutorService pool = Executors.newFixedThreadPool(setup.threads(), r -> {
            Thread t = new Thread(r, "ata-sim");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<double[]>> objectives = new ArrayList<>();
            for (int s = 0; s < setup.seeds(); s++) {
                long seed = setup.firstSeed() + s;
                objectives.add(pool.submit(() -> setup.problem() == null
                        ? null
                        : setup.problem().objectiveCurve(sampled, context.batch(), seed)));
            }
            Map<String, List<Future<RunResult>>> futures = new LinkedHashMap<>();
            for (String name : setup.policies()) {
                for (StatisticsAge age : setup.ages()) {
                    List<Future<RunResult>> perSeed = new ArrayList<>();
                    for (int s = 0; s < setup.seeds(); s++) {
                        long seed = setup.firstSeed() + s;
                        Future<double[]> objective = objectives.get(s);
                        perSeed.add(pool.submit(() -> {
                            WorkerStats stats = new WorkerStats(context.workers());
                            AllocationPolicy policy = PolicyFactory.create(name, context, seed, stats);
                            DurationSource durations = setup.durationsForSeed().apply(seed);
                            RunResult result = runner.run(
                                    policy,
                                    age,
                                    stats,
                                    durations,
                                    setup.rounds(),
                                    seed,
                                    sampled,
                                    objective.get(),
                                    progress);
                            return result.labelled(age.label(result.policy()));
                        }));
                    }
                    futures.put(age.label(name), perSeed);
                }
            }
            Map<String, List<RunResult>> results = new LinkedHashMap<>();
            for (Map.Entry<String, List<Future<RunResult>>> e : futures.entrySet()) {
                List<RunResult> perSeed = new ArrayList<>();
                for (Future<RunResult> f : e.getValue()) {
                    perSeed.add(f.get());
                }
                results.put(e.getKey(), perSeed);
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(cause);
        } finally {
            pool.shutdownNow();
        }
    }
}
