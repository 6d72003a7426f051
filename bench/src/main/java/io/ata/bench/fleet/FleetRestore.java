package io.ata.bench.fleet;

import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.trainer.Trainer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * How long the broker takes to serve again after {@code kill -9} while it holds many jobs' state:
 * the broker runs in a process of its own ({@link BrokerProcess}), the virtual fleet and the jobs'
 * trainers in this one. Once every job has closed a few rounds the broker is killed (SIGKILL) and
 * started again at once on the same state directory, as {@code deploy/bench/recovery.sh} does with
 * each part. Measured from the kill: the new process RUNNING, the first round closed, and every job
 * having closed a round again.
 */
public final class FleetRestore {

    /**
     * @param agents virtual agents
     * @param jobs concurrent jobs
     * @param roundsBefore rounds every job closed before the kill
     * @param runningSeconds kill to the new broker process RUNNING (JVM start and Streams' restore)
     * @param firstRoundSeconds kill to the first round closed after it
     * @param allJobsSeconds kill to the moment the last job closed a round after it; NaN if not all did
     * @param jobsProgressed jobs that closed a round after the kill
     */
    public record Result(
            int agents,
            int jobs,
            long roundsBefore,
            double runningSeconds,
            double firstRoundSeconds,
            double allJobsSeconds,
            int jobsProgressed) {}

    private static final int ROUNDS_BEFORE = 3;

    private final Function<Topics, LocalDeployment> deployments;
    private final LongConsumer progress;

    public FleetRestore(Function<Topics, LocalDeployment> deployments, LongConsumer progress) {
        this.deployments = deployments;
        this.progress = progress;
    }

    public Result run(int agents, int jobs, Duration timeout) throws Exception {
        Topics topics = new Topics(
                String.format(Locale.ROOT, "restore-%dx%d-%d.", agents, jobs, System.nanoTime()),
                Math.max(Topics.DEFAULT_TASK_PARTITIONS, agents),
                1);
        AtomicLongArray closes = new AtomicLongArray(jobs);
        AtomicLongArray firstAfterKill = new AtomicLongArray(jobs);
        long[] killedAt = {Long.MAX_VALUE};
        try (LocalDeployment local = deployments.apply(topics)) {
            Path stateDir = local.workDirectory().resolve("broker-process-state");
            Path log = local.workDirectory().resolve("broker-process.log");
            Process broker =
                    BrokerProcess.start(local.bootstrapServers(), topics.prefix(), stateDir, local.registryUrl(), log);
            try {
                awaitRunning(log, 1, broker, Duration.ofMinutes(3));
                try (VirtualFleet fleet = new VirtualFleet(
                        local.clientProperties(),
                        topics,
                        local.registry(),
                        VirtualFleet.Settings.of(agents),
                        (a, nanos) -> {})) {
                    fleet.start();
                    List<Trainer> trainers = new ArrayList<>();
                    for (int j = 0; j < jobs; j++) {
                        int index = j;
                        trainers.add(local.startTrainer(local.trainerConfig(
                                        String.format(Locale.ROOT, "job-%04d", j + 1),
                                        "uta",
                                        Math.max(1, agents / jobs),
                                        Long.MAX_VALUE / 2)
                                .listener(summary -> {
                                    long now = System.nanoTime();
                                    if (now > killedAt[0]) {
                                        firstAfterKill.compareAndSet(index, 0, now);
                                    }
                                    if (closes.incrementAndGet(index) <= ROUNDS_BEFORE) {
                                        progress.accept(1);
                                    }
                                })
                                .build()));
                    }
                    long deadline = System.nanoTime() + timeout.toNanos();
                    while (min(closes) < ROUNDS_BEFORE) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("not every job closed " + ROUNDS_BEFORE
                                    + " rounds before the kill (the slowest " + min(closes) + ")");
                        }
                        Thread.sleep(100);
                    }
                    long before = sum(closes);
                    killedAt[0] = System.nanoTime();
                    broker.destroyForcibly(); // SIGKILL
                    broker.waitFor();
                    broker = BrokerProcess.start(
                            local.bootstrapServers(), topics.prefix(), stateDir, local.registryUrl(), log);
                    awaitRunning(log, 2, broker, Duration.ofMinutes(5));
                    double running = (System.nanoTime() - killedAt[0]) / 1e9;
                    long after = System.nanoTime() + timeout.toNanos();
                    while (count(firstAfterKill) < jobs && System.nanoTime() < after) {
                        Thread.sleep(50);
                    }
                    trainers.forEach(Trainer::close);
                    int progressed = count(firstAfterKill);
                    long first = Long.MAX_VALUE;
                    long last = 0;
                    for (int j = 0; j < jobs; j++) {
                        long t = firstAfterKill.get(j);
                        if (t > 0) {
                            first = Math.min(first, t);
                            last = Math.max(last, t);
                        }
                    }
                    return new Result(
                            agents,
                            jobs,
                            before,
                            running,
                            progressed == 0 ? Double.NaN : (first - killedAt[0]) / 1e9,
                            progressed == jobs ? (last - killedAt[0]) / 1e9 : Double.NaN,
                            progressed);
                }
            } finally {
                broker.destroyForcibly();
                broker.waitFor();
            }
        }
    }

    /** Waits until the broker's log says RUNNING for the {@code n}th time. */
    private static void awaitRunning(Path log, int n, Process broker, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (Files.exists(log)) {
                long seen = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                        .filter(BrokerProcess.RUNNING::equals)
                        .count();
                if (seen >= n) {
                    return;
                }
            }
            if (!broker.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the broker process did not reach RUNNING; see " + log);
            }
            Thread.sleep(20);
        }
    }

    private static long min(AtomicLongArray a) {
        long m = Long.MAX_VALUE;
        for (int i = 0; i < a.length(); i++) {
            m = Math.min(m, a.get(i));
        }
        return m;
    }

    private static long sum(AtomicLongArray a) {
        long s = 0;
        for (int i = 0; i < a.length(); i++) {
            s += a.get(i);
        }
        return s;
    }

    private static int count(AtomicLongArray a) {
        int c = 0;
        for (int i = 0; i < a.length(); i++) {
            c += a.get(i) > 0 ? 1 : 0;
        }
        return c;
    }
}
