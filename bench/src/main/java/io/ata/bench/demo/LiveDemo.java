package io.ata.bench.demo;

import io.ata.lab.export.TimingExport;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.local.LocalDeployment;
import io.ata.local.RunFailure;
import io.ata.local.StopSignal;
import io.ata.schemas.Evaluation;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.trainer.RoundListener;
import io.ata.trainer.RoundSummary;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.AgentMetrics;
import io.ata.workeragent.WorkerAgent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The jobs {@code ata demo} runs on a {@link LocalDeployment}: the deployment starts the parts (Kafka,
 * the registry, the broker with its HTTP queries, the agents, the trainers) and closes them; this
 * class trains one job at a time to its end and gathers what it did ({@link JobOutcome}).
 */
public final class LiveDemo {
    /** How long the fleet may take to join, and a job may go without closing a round. */
    public static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    public static final Duration STALL_TIMEOUT = Duration.ofSeconds(120);
    /** How long the agents may take to finish a job's last tasks after its last round closed. */
    public static final Duration QUIET_TIMEOUT = Duration.ofSeconds(30);
    /** How long the scoring of a job's last model version may take after its last round closed. */
    public static final Duration LAST_EVALUATION_TIMEOUT = Duration.ofSeconds(60);

    /**
     * One finished job.
     *
     * @param startEpochMs  when the trainer was started, epoch milliseconds: the origin of the job's wall time
     * @param wallSeconds   from starting the trainer to its last round's close
     * @param roundTimes    each round's time (ms) as the trainer measured it: open to B-th accepted result
     * @param finalObjective the objective of the last model version: the quadratic problem's
     *                      suboptimality f(x) - f(x*), a network's mean training loss of the round
     * @param evaluations   the model versions scored on the test set, in version order
     * @param timings       every task the agents ran for the job, with its fate
     */
    public record JobOutcome(
            String policy,
            String job,
            long rounds,
            long startEpochMs,
            double wallSeconds,
            double[] roundTimes,
            double finalObjective,
            List<Evaluation> evaluations,
            TimingExport.Result timings) {
        public double meanRoundMs() {
            return roundTimes.length == 0
                    ? Double.NaN
                    : Arrays.stream(roundTimes).average().orElse(Double.NaN);
        }

        public double totalWorkerMs() {
            return acceptedWorkerMs() + wastedWorkerMs();
        }

        public double acceptedWorkerMs() {
            return timings.duration(TimingRecord.Status.COMPLETED);
        }

        public double wastedWorkerMs() {
            return timings.wasted();
        }
    }

    private final LocalDeployment local;

    /** @param local the deployment whose parts run the jobs */
    public LiveDemo(LocalDeployment local) {
        this.local = local;
    }

    public Topics topics() {
        return local.topics();
    }

    /**
     * Starts the broker with its interactive queries on loopback ({@code httpPort}, 0 for any free
     * port), waits until it runs, and returns the queries' URL.
     *
     * @throws InterruptedException if stopped while the broker starts
     */
    public String startBroker(int httpPort) throws InterruptedException {
        return local.startBroker(httpPort);
    }

    /**
     * Starts one agent; {@code config} comes from {@link #agentConfig}, which already keeps the
     * session timeout above a real cluster's minimum.
     */
    public WorkerAgent startAgent(AgentConfig.Builder config) {
        return local.startAgent(config.build());
    }

    public AgentConfig.Builder agentConfig(String workerId) {
        return local.agentConfig(workerId);
    }

    /**
     * Waits until the broker sees every agent as a live member owning task partitions.
     *
     * @return false if a stop was requested meanwhile
     */
    public boolean awaitFleet(StopSignal stop) {
        return local.awaitFleet(STARTUP_TIMEOUT, stop);
    }

    /**
     * Trains one job to its last round (and, if it is evaluated, until its last model version is
     * scored), then waits for the agents to finish its tasks and reads its timings.
     *
     * @param config  the job's trainer settings (from {@link #trainerConfig}); its listener is set here
     * @param onRound told about each closed round (on the trainer's thread)
     * @return the outcome, or null if a stop was requested meanwhile
     */
    public JobOutcome runJob(
            String policy,
            String job,
            long rounds,
            TrainerConfig.Builder config,
            Consumer<RoundSummary> onRound,
            StopSignal stop) {
        long baseline = handledAssignments();
        List<RoundSummary> closed = new ArrayList<>();
        List<Evaluation> evaluations = new ArrayList<>();
        CountDownLatch lastRoundSeen = new CountDownLatch(1);
        CountDownLatch lastVersionScored = new CountDownLatch(1);
        TrainerConfig trainerConfig = config.listener(new RoundListener() {
                    @Override
                    public void roundClosed(RoundSummary summary) {
                        synchronized (closed) {
                            closed.add(summary);
                        }
                        onRound.accept(summary);
                        if (summary.round() >= rounds) {
                            lastRoundSeen.countDown();
                        }
                    }

                    @Override
                    public void evaluated(Evaluation evaluation) {
                        synchronized (evaluations) {
                            evaluations.add(evaluation);
                        }
                        if (evaluation.getModelVersion() >= rounds) {
                            lastVersionScored.countDown();
                        }
                    }
                })
                .build();
        long startEpochMs = System.currentTimeMillis();
        long start = System.nanoTime();
        Trainer trainer = local.startTrainer(trainerConfig); // it stops by itself after its last round
        long lastProgress = System.nanoTime();
        long lastRound = -1;
        try {
            while (!trainer.awaitRounds(rounds, Duration.ofMillis(100))) {
                if (!trainer.isRunning()) {
                    throw new RunFailure("the trainer of job " + job + " stopped at round "
                            + trainer.metrics().lastClosedRound() + ": "
                            + trainer.failure().map(Throwable::toString).orElse("no reason given"));
                }
                long round = trainer.metrics().lastClosedRound();
                if (round != lastRound) {
                    lastRound = round;
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > STALL_TIMEOUT.toNanos()) {
                    throw new RunFailure("job " + job + " stalled: no round closed for " + STALL_TIMEOUT.toSeconds()
                            + " s after round " + round);
                }
                if (stop.requested()) {
                    return null;
                }
            }
        } catch (InterruptedException e) {
            return null;
        }
        double wallSeconds = (System.nanoTime() - start) / 1e9;
        try {
            // the trainer counts a round closed just before it tells the listener
            lastRoundSeen.await(10, TimeUnit.SECONDS);
            if (trainerConfig.evalEvery() > 0
                    && !lastVersionScored.await(LAST_EVALUATION_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new RunFailure("the evaluation of job " + job + "'s last model version was not published within "
                        + LAST_EVALUATION_TIMEOUT.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            return null;
        }
        if (!awaitQuiet(job, baseline, stop)) {
            return null;
        }
        TimingExport.Result timings = TimingExport.read(
                local.clientProperties(), local.registry(), topics().prefix(), job, TimingExport.DEFAULT_TIMEOUT);
        double[] roundTimes;
        double finalObjective;
        synchronized (closed) {
            roundTimes = closed.stream().mapToDouble(RoundSummary::roundTimeMs).toArray();
            finalObjective = closed.isEmpty()
                    ? Double.NaN
                    : closed.get(closed.size() - 1).objective();
        }
        List<Evaluation> scored;
        synchronized (evaluations) {
            scored = List.copyOf(evaluations);
        }
        return new JobOutcome(
                policy, job, rounds, startEpochMs, wallSeconds, roundTimes, finalObjective, scored, timings);
    }

    /** A job's trainer settings on this deployment, before the listener {@link #runJob} sets. */
    public TrainerConfig.Builder trainerConfig(String job, String policy, int batch, long rounds) {
        return local.trainerConfig(job, policy, batch, rounds);
    }

    /**
     * Waits until the agents have handled every assignment of {@code job} (run, stopped because its
     * round closed, or skipped), so that its timings are complete, late tasks included.
     */
    private boolean awaitQuiet(String job, long baseline, StopSignal stop) {
        Topics topics = topics();
        long emitted = TimingExport.count(
                local.clientProperties(),
                topics.tasks().name(),
                topics.tasks().valueSerde(local.registry()).deserializer(),
                (TaskAssignment a) -> a.getJob().equals(job),
                TimingExport.DEFAULT_TIMEOUT);
        long deadline = System.nanoTime() + QUIET_TIMEOUT.toNanos();
        while (handledAssignments() - baseline < emitted && System.nanoTime() < deadline) {
            if (stop.await(Duration.ofMillis(20))) {
                return false;
            }
        }
        return true;
    }

    /** Assignments the agents have finished with, in any way. */
    private long handledAssignments() {
        long n = 0;
        for (WorkerAgent a : local.agents()) {
            AgentMetrics m = a.metrics();
            n += m.assignmentsCompleted()
                    + m.assignmentsSkippedStale()
                    + m.assignmentsStoppedRoundClosed()
                    + m.deadLetters();
        }
        return n;
    }

    public Map<String, Object> clientProperties() {
        return local.clientProperties();
    }
}
