package io.ata.bench;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.broker.BrokerSettings;
import io.ata.lab.export.TimingExport;
import io.ata.lab.sim.ModelDurations;
import io.ata.lab.sim.PolicyRun;
import io.ata.lab.sim.RunResult;
import io.ata.lab.sim.SeriesSampler;
import io.ata.lab.sim.StatisticsAge;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.trainer.TrainerMetrics;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * What the live system adds to a round over the simulator, as {@code ata bench-live --only ratio}
 * measures it: one policy's mean round time live (8 emulated agents, B = 8, after an unmeasured
 * warm-up job) over its mean in the simulator on the same time model, policy and fleet (200 seeds),
 * with statistics as old as the live broker's (one round older under pipelined allocation). Beside
 * it, the same live rounds against their own draws played back to back, with the overhead taken
 * apart ({@link RoundBreakdown}): the two means differ by the sampling noise of 300 rounds too.
 */
public final class LiveSimRatioBench {
    /** The fleet: agent j (1-based) takes {@code (25 + 6.25 (j-1)) + Exp(same)} ms, means 50 to 137.5 ms. */
    public static final int AGENTS = 8;

    public static final int BATCH = 8;
    /** The measured job. */
    static final String JOB = "ratio";
    /** Simulated runs averaged for the simulator's mean. */
    static final int SEEDS = 200;

    private final MeterRegistry meters;
    private final LongConsumer progress;
    private final BrokerSettings settings;

    /**
     * One policy's figures.
     *
     * @param liveRoundsMs each live round's time (ms), as the trainer measured it
     * @param simulatedMeanMs the simulator's mean round time (ms)
     * @param breakdown the live rounds against their own draws played back to back, their overhead taken apart
     */
    public record Result(double[] liveRoundsMs, double simulatedMeanMs, RoundBreakdown.Summary breakdown) {
        public double liveMeanMs() {
            return Arrays.stream(liveRoundsMs).average().orElseThrow();
        }

        /** Live over simulated mean round time. */
        public double ratio() {
            return liveMeanMs() / simulatedMeanMs;
        }
    }

    /**
     * @param meters   where every part's meters go
     * @param progress told about each live round closed, warm-up included
     * @param settings the broker's settings (the fleet's known means are added)
     */
    public LiveSimRatioBench(MeterRegistry meters, LongConsumer progress, BrokerSettings settings) {
        this.meters = meters;
        this.progress = progress;
        this.settings = settings;
    }

    /** Agent j (1-based) of the fleet: mean 50 + 12.5 (j - 1) ms, half fixed, half exponential. */
    static TaskTimeDistribution taskTime(int j) {
        double half = 25 + 6.25 * (j - 1);
        return new TaskTimeDistribution.Shifted(half, new TaskTimeDistribution.Exponential(half));
    }

    /** Runs {@code policy} live for {@code rounds} after a {@code warmupRounds} job, then in the simulator. */
    public Result run(String policy, int warmupRounds, int rounds) throws InterruptedException {
        TaskTimeDistribution[] fleet = new TaskTimeDistribution[AGENTS];
        Map<String, Double> means = new LinkedHashMap<>();
        for (int j = 1; j <= AGENTS; j++) {
            fleet[j - 1] = taskTime(j);
            means.put("agent-" + j, fleet[j - 1].mean());
        }
        double[] live = new double[rounds];
        RoundBreakdown breakdown = new RoundBreakdown(JOB, BATCH);
        double[] publishMs = {Double.NaN};
        List<TimingRecord> timings;
        Topics topics = new Topics("ratio-" + System.nanoTime() + ".").withTaskPartitions(32);
        try (LocalDeployment local = LocalDeployment.builder(topics)
                .brokerSettings(settings.withKnownMeans(means))
                .meters(meters)
                .start()) {
            local.startBroker();
            for (int j = 1; j <= AGENTS; j++) {
                local.startAgent(ControlOverheadBench.userAgent(local, "agent-" + j)
                        .emulatedTime(fleet[j - 1])
                        .assignmentListener(breakdown.starts())
                        .build());
            }
            local.awaitFleet(Duration.ofSeconds(120));
            if (warmupRounds > 0) {
                // its own job: statistics are per job, so the measured job starts from nothing
                local.trainToEnd(
                        local.trainerConfig("warmup", "uta", BATCH, warmupRounds)
                                .listener(s -> progress.accept(1))
                                .build(),
                        Duration.ofMinutes(10));
            }
            local.trainToEnd(
                    local.trainerConfig(JOB, policy, BATCH, rounds)
                            .listener(s -> {
                                live[(int) s.round() - 1] = s.roundTimeMs();
                                breakdown.roundClosed(s);
                                // the trainer's meters go with it: read while it runs
                                publishMs[0] = meanMs(meters.find(TrainerMetrics.PUBLISH_TIME)
                                        .tag(TrainerMetrics.JOB, JOB)
                                        .timer());
                                progress.accept(1);
                            })
                            .build(),
                    Duration.ofMinutes(10));
            timings = TimingExport.read(
                            local.clientProperties(),
                            local.registry(),
                            topics.prefix(),
                            JOB,
                            TimingExport.DEFAULT_TIMEOUT)
                    .records();
        }
        StatisticsAge age = settings.pipelinedAllocation() ? StatisticsAge.ONE_ROUND_STALE : StatisticsAge.FRESH;
        return new Result(live, simulatedMean(policy, fleet, rounds, age), breakdown.summarize(timings, publishMs[0]));
    }

    private static double meanMs(Timer timer) {
        return timer == null || timer.count() == 0 ? Double.NaN : timer.mean(TimeUnit.MILLISECONDS);
    }

    /**
     * The simulator: the same policy over the same distributions, the same rounds, many seeds, its
     * rounds planned from statistics of the {@code age} the live broker plans them from.
     */
    private static double simulatedMean(String policy, TaskTimeDistribution[] fleet, int rounds, StatisticsAge age) {
        double[] knownMeans = TimeModels.means(fleet);
        PolicyContext context =
                new PolicyContext(AGENTS, BATCH, knownMeans, ConstantConvention.PAPER, Double.NaN, Double.NaN, "bench");
        int[] fta = new int[AGENTS];
        new AllocationSolver().solve(knownMeans, AGENTS, BATCH, fta);
        PolicyRun runner = new PolicyRun(AGENTS, BATCH, knownMeans, fta);
        long[] sampled = SeriesSampler.rounds(rounds);
        double total = 0;
        for (int seed = 0; seed < SEEDS; seed++) {
            WorkerStats stats = new WorkerStats(AGENTS);
            RunResult r = runner.run(
                    PolicyFactory.create(policy, context, seed, stats),
                    age,
                    stats,
                    new ModelDurations(fleet, seed),
                    rounds,
                    seed,
                    sampled,
                    null,
                    null);
            total += r.meanRoundTime();
        }
        return total / SEEDS;
    }
}
