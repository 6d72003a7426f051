package io.ata.lab.sim;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.TaskDeadlines;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * Drives one policy through {@code rounds} rounds: plan, execute against the durations, observe,
 * and keep the metrics of spec section 6 (cumulative runtime and worker time, average round
 * time, averaged proxy regret) at the sampled rounds.
 */
public final class PolicyRun {
    private static final long PROGRESS_EVERY = 4096;

    private final int workers;
    private final int batch;
    private final double[] trueMeans;
    private final int[] ftaAllocation;
    private final double ftaProxyLoss;

    /**
     * @param trueMeans     for the proxy regret, or null
     * @param ftaAllocation the oracle allocation to compare against, or null
     */
    public PolicyRun(int workers, int batch, double[] trueMeans, int[] ftaAllocation) {
        this.workers = workers;
        this.batch = batch;
        this.trueMeans = trueMeans;
        this.ftaAllocation = ftaAllocation;
        double proxy = Double.NaN;
        if (trueMeans != null && ftaAllocation != null) {
            proxy = AllocationSolver.proxyLoss(ftaAllocation, trueMeans, workers);
        }
        this.ftaProxyLoss = proxy;
    }

    /**
     * Runs {@code policy}, whose statistics are {@code stats}: each round's outcome is folded into
     * them before the policy observes it, exactly as the live broker does. Round {@code k} is
     * planned from statistics of age {@code age}: after round {@code k-1} was observed under
     * {@link StatisticsAge#FRESH}; under
     * {@link StatisticsAge#ONE_ROUND_STALE}, as the live broker's pipelined allocation does, round
     * {@code k+1} is planned when round {@code k} starts, from what rounds up to {@code k-1} taught,
     * and runs under the deadlines of that moment. Round 1 and 2 are both planned before anything
     * was observed, and nothing is planned past the last round. Membership is each round's own: a
     * round-ahead plan sees the workers present in the round it is for.
     */
    public RunResult run(
            AllocationPolicy policy,
            StatisticsAge age,
            WorkerStats stats,
            DurationSource durations,
            long rounds,
            long seed,
            long[] sampledRounds,
            double[] objective,
            LongConsumer progress) {
        boolean stale = age == StatisticsAge.ONE_ROUND_STALE;
        RoundPlan current = new RoundPlan(workers);
        RoundPlan ahead = new RoundPlan(workers);
        TaskDeadlines aheadDeadlines = null;
        RoundExecutor executor = new RoundExecutor();
        RoundOutcome outcome = new RoundOutcome(workers);
        int samples = sampledRounds.length;
        double[] runtimeSeries = new double[samples];
        double[] workerTimeSeries = new double[samples];
        double[] avgRoundSeries = new double[samples];
        double[] regretSeries = new double[samples];
        int ftaSupport = 0;
        if (ftaAllocation != null) {
            for (int a : ftaAllocation) {
                ftaSupport += a > 0 ? 1 : 0;
            }
        }
        long half = rounds / 2;
        double runtime = 0;
        double workerTime = 0;
        double accepted = 0;
        double proxySum = 0;
        double runtimeAtHalf = 0;
        double workerTimeAtHalf = 0;
        long firstFta = -1;
        long lastNonFta = ftaAllocation == null ? -1 : 0;
        int nextSample = 0;
        long done = 0;
        String stopReason = null;
        boolean changing = !durations.isStationary();
        for (long k = 1; k <= rounds; k++) {
            durations.startRound(k);
            RoundPlan plan;
            TaskDeadlines deadlines;
            if (!stale) {
                if (changing) {
                    applyMembership(stats, durations, k);
                }
                plan = policy.plan(k);
                deadlines = policy.deadlines().orElse(null);
            } else {
                if (k == 1) {
                    if (changing) {
                        applyMembership(stats, durations, 1);
                    }
                    ahead.copyFrom(policy.plan(1));
                    aheadDeadlines = DeadlineSnapshot.of(policy, workers);
                }
                RoundPlan swap = current;
                current = ahead;
                ahead = swap;
                plan = current;
                deadlines = aheadDeadlines;
                if (k < rounds) {
                    if (changing) {
                        applyMembership(stats, durations, k + 1);
                    }
                    ahead.copyFrom(policy.plan(k + 1));
                    aheadDeadlines = DeadlineSnapshot.of(policy, workers);
                }
                if (changing) {
                    // round k runs with its own workers: backups go only to those present
                    applyMembership(stats, durations, k);
                }
            }
            if (ftaAllocation != null) {
                if (matches(plan, ftaSupport)) {
                    if (firstFta < 0) {
                        firstFta = k;
                    }
                } else {
                    lastNonFta = k;
                }
            }
            try {
                executor.run(plan, durations, deadlines, outcome, workers);
            } catch (DurationSource.ExhaustedException e) {
                stopReason = e.getMessage();
                break;
            }
            outcome.foldInto(stats);
            policy.observe(outcome);
            double busy = outcome.busyTime();
            double proxy = 0;
            for (int j = 0; j < outcome.workerCount(); j++) {
                int w = outcome.worker(j);
                if (trueMeans != null && outcome.accepted(w) > 0) {
                    proxy = Math.max(proxy, outcome.accepted(w) * trueMeans[w]);
                }
            }
            runtime += outcome.roundTime();
            workerTime += busy;
            accepted += acceptedTime(outcome);
            proxySum += proxy;
            if (k == half) {
                runtimeAtHalf = runtime;
                workerTimeAtHalf = workerTime;
            }
            done = k;
            if (nextSample < samples && sampledRounds[nextSample] == k) {
                runtimeSeries[nextSample] = runtime;
                workerTimeSeries[nextSample] = workerTime;
                avgRoundSeries[nextSample] = runtime / k;
                regretSeries[nextSample] = (proxySum - k * ftaProxyLoss) / k;
                nextSample++;
            }
            if (progress != null && (k % PROGRESS_EVERY == 0)) {
                progress.accept(PROGRESS_EVERY);
            }
        }
        if (progress != null) {
            progress.accept(done % PROGRESS_EVERY + (rounds - done));
        }
        long tailRounds = done - Math.min(half, done);
        double tailRound = tailRounds > 0 ? (runtime - runtimeAtHalf) / tailRounds : Double.NaN;
        double tailBusy = tailRounds > 0 ? (workerTime - workerTimeAtHalf) / tailRounds : Double.NaN;
        int kept = nextSample;
        RunResult.Series series = new RunResult.Series(
                Arrays.copyOf(sampledRounds, kept),
                Arrays.copyOf(runtimeSeries, kept),
                Arrays.copyOf(workerTimeSeries, kept),
                Arrays.copyOf(avgRoundSeries, kept),
                Arrays.copyOf(regretSeries, kept),
                objective == null ? nanArray(kept) : Arrays.copyOf(objective, kept));
        return new RunResult(
                policy.name(),
                policy.describe(),
                workers,
                batch,
                seed,
                done,
                runtime,
                workerTime,
                accepted,
                trueMeans == null ? Double.NaN : proxySum,
                ftaProxyLoss,
                tailRound,
                tailBusy,
                firstFta,
                lastNonFta,
                stopReason,
                series);
    }

    /** Workers join and leave as the duration source's schedule says, before the policy plans. */
    private static void applyMembership(WorkerStats stats, DurationSource durations, long round) {
        boolean anyone = false;
        for (int i = 0; i < stats.size(); i++) {
            boolean present = durations.isPresent(i, round);
            stats.setActive(i, present);
            anyone |= present;
        }
        if (!anyone) {
            throw new IllegalArgumentException(
                    "no worker takes part in round " + round + ": every worker has left or not yet joined");
        }
    }

    /** Time of the tasks that went into the batch. */
    private static double acceptedTime(RoundOutcome outcome) {
        double total = 0;
        for (int j = 0; j < outcome.workerCount(); j++) {
            int w = outcome.worker(j);
            if (outcome.accepted(w) == outcome.completed(w)) {
                total += outcome.completedTime(w);
            } else {
                total += acceptedPart(outcome, w);
            }
        }
        return total;
    }

    /** For a worker with unaccepted completions (same-instant ties), its first accepted durations. */
    private static double acceptedPart(RoundOutcome outcome, int worker) {
        int left = outcome.accepted(worker);
        double total = 0;
        for (int k = 0; k < outcome.durationCount() && left > 0; k++) {
            if (outcome.durationWorker(k) == worker) {
                total += outcome.duration(k);
                left--;
            }
        }
        return total;
    }

    private boolean matches(RoundPlan plan, int ftaSupport) {
        if (plan.supportSize() != ftaSupport) {
            return false;
        }
        for (int k = 0; k < plan.supportSize(); k++) {
            int w = plan.supportWorker(k);
            if (plan.tasks(w) != ftaAllocation[w]) {
                return false;
            }
        }
        return true;
    }

    private static double[] nanArray(int size) {
        double[] a = new double[size];
        Arrays.fill(a, Double.NaN);
        return a;
    }
}
