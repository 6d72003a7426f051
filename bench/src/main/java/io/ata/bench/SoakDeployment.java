package io.ata.bench;

import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.trainer.AdamOptimizer;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.QuadraticWorkload;
import io.ata.workeragent.WorkerAgent;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The system a soak runs: an embedded Kafka, the Schema Registry, the broker with its HTTP queries,
 * a fleet of agents (each with {@link OutlierWorkload honest outliers}) and the trainer of one
 * quadratic job (Adam, so that it keeps an optimizer state), in this process through
 * {@link LocalDeployment}; and the ways to restart each part as a crash would: the trainer killed
 * and started again, an agent killed and started again under its id, the broker (with its embedded
 * registry, as {@code ata broker} runs it) stopped and started from its state directory.
 */
public final class SoakDeployment implements AutoCloseable {
    /** The job trained. */
    public static final String JOB = "soak";
    /** Results per round. */
    public static final int BATCH = 8;
    /** More rounds than any soak closes: the job never ends by itself. */
    private static final long ROUNDS = 1_000_000_000L;
    /** Each agent's mean task time, in ms, in turn. */
    private static final double[] TASK_MS = {10, 14, 18, 24};

    /** Where the deployment serves the broker's queries: loopback. */
    private static final String HOST = "127.0.0.1";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final LocalDeployment local;
    private final TrainerConfig trainerConfig;
    private final List<String> agentIds = new ArrayList<>();
    private final List<OutlierWorkload> workloads = new ArrayList<>();
    private final int httpPort;
    private volatile Trainer trainer;
    private volatile boolean brokerRestarting;
    /** Counters of the trainers killed so far (a trainer's meters go with it). */
    private long stalledBefore;

    private long clippedBefore;
    private long trainerLettersBefore;
    private int trainersStarted;

    /**
     * Starts everything and waits until the fleet is in the broker's membership.
     *
     * @param agents   how many agents
     * @param seed     the deployment's seed: the agents' task times and the job's noise
     * @param listener told about every round closed, by every trainer of the job
     */
    public SoakDeployment(int agents, long seed, RoundCloses listener) throws InterruptedException {
        if (agents < 1) {
            throw new IllegalArgumentException("need at least one agent, not " + agents);
        }
        local = LocalDeployment.embedded(new Topics("soak.").withTaskPartitions(8), LocalDeployment.QUICK_LIVENESS);
        try {
            httpPort = URI.create(local.startBroker(0)).getPort();
            for (int i = 0; i < agents; i++) {
                String id = "agent-" + (i + 1);
                OutlierWorkload workload = new OutlierWorkload(
                        new QuadraticWorkload(), OutlierWorkload.DEFAULT_FACTOR, OutlierWorkload.DEFAULT_EVERY);
                AgentConfig config = local.agentConfig(id)
                        .emulatedTime(LocalDeployment.aboutMs(TASK_MS[i % TASK_MS.length]))
                        .workload(workload)
                        .seed(seed)
                        .build();
                local.startAgent(config);
                agentIds.add(id);
                workloads.add(workload);
            }
            local.awaitFleet(START_TIMEOUT);
            trainerConfig = local.trainerConfig(JOB, "ata-auto", BATCH, ROUNDS)
                    .optimizer(new AdamOptimizer(0.01))
                    .seed(seed)
                    .listener(listener)
                    .build();
            trainer = startTrainer();
        } catch (RuntimeException | InterruptedException e) {
            local.close();
            throw e;
        }
    }

    private synchronized Trainer startTrainer() {
        trainersStarted++;
        return local.startTrainer(trainerConfig);
    }

    public LocalDeployment local() {
        return local;
    }

    public Topics topics() {
        return local.topics();
    }

    public List<String> agentIds() {
        return List.copyOf(agentIds);
    }

    public Trainer trainer() {
        return trainer;
    }

    /** The model's parameter count, for forged gradients. */
    public int dimension() {
        return trainerConfig.trainingJob().model().dimension();
    }

    /** The broker's HTTP queries: the same port across restarts. */
    public int brokerHttpPort() {
        return httpPort;
    }

    public String host() {
        return HOST;
    }

    /** The embedded registry's HTTP port: the same across restarts. */
    public int registryPort() {
        return URI.create(local.registryUrl()).getPort();
    }

    /** Whether the broker (and its HTTP server) is being restarted now. */
    public boolean brokerRestarting() {
        return brokerRestarting;
    }

    /** Kills the trainer, as a crash would, and starts a new one of the job, which takes over. */
    public void restartTrainer() {
        Trainer old = trainer;
        old.kill();
        synchronized (this) {
            var counters = old.metrics();
            stalledBefore += counters.roundsStalled();
            clippedBefore += counters.clipped();
            trainerLettersBefore += counters.deadLetters();
        }
        trainer = startTrainer();
    }

    /** Kills agent {@code id}, as a crash would, and starts it again under the same id. */
    public void restartAgent(String id) {
        local.restartAgent(id);
    }

    /**
     * Stops the broker and its HTTP server, restarts the embedded registry (a new one, which knows
     * only what the schemas topic says) and starts the broker again from its state directory, then
     * its HTTP server on the same port.
     */
    public void restartBroker() throws InterruptedException {
        brokerRestarting = true;
        try {
            local.stopBroker(); // and its HTTP server
            local.restartRegistry();
            local.startBroker(httpPort);
        } finally {
            brokerRestarting = false;
        }
    }

    /** Times a trainer found the open round stalled and re-drove it, over every trainer of the job. */
    public synchronized long roundsStalled() {
        return stalledBefore + trainer.metrics().roundsStalled();
    }

    /** Results clipped to the norm bound, over every trainer of the job. */
    public synchronized long clipped() {
        return clippedBefore + trainer.metrics().clipped();
    }

    /** Dead letters the trainers wrote, as they count them. */
    public synchronized long trainerLetters() {
        return trainerLettersBefore + trainer.metrics().deadLetters();
    }

    public synchronized int trainersStarted() {
        return trainersStarted;
    }

    /** Outlier gradients the agents computed. */
    public long outliersComputed() {
        return workloads.stream().mapToLong(OutlierWorkload::outliers).sum();
    }

    /** The agents not running now (crashed, or failed), with why. */
    public List<String> agentsDown() {
        List<String> down = new ArrayList<>();
        for (String id : agentIds) {
            WorkerAgent a = local.agent(id);
            if (a == null || !a.isRunning()) {
                down.add(id
                        + (a == null ? "" : a.failure().map(f -> " (" + f + ")").orElse("")));
            }
        }
        return down;
    }

    /** Why the trainer is not running, if it is not. */
    public Optional<String> trainerDown() {
        Trainer t = trainer;
        if (t.isRunning()) {
            return Optional.empty();
        }
        return Optional.of("trainer stopped" + t.failure().map(f -> ": " + f).orElse(""));
    }

    @Override
    public void close() {
        local.close();
    }
}
