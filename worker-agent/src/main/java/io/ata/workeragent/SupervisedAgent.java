package io.ata.workeragent;

import io.ata.platform.kafka.KafkaErrors;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker agent kept running: when the agent stops on a producer that only new clients heal
 * ({@link KafkaErrors#isHealedByNewClients}: its epoch is gone, because its process paused past the
 * transaction timeout and the coordinator aborted its transaction, or a newer producer of its
 * transactional id fenced it; or Kafka left it unusable without naming why), a new agent with new
 * clients starts under the same ids, at most {@link AgentRestarts#MAX} times in
 * {@link AgentRestarts#WINDOW}. Its consumer takes the task partitions back (static membership)
 * and runs what was not committed, as after a crash. Any other stop is final.
 *
 * <p>{@code ata worker} and the embedded deployment's agents run under one. The supervisor owns the
 * workers' {@link AgentMetrics} ({@link AgentMeters}) and hands them to each agent it starts, so its counters count on
 * across starts over (as one process's counters should) instead of dropping to zero. Each start
 * over counts in {@value #RESTARTS}{@code {worker}} (Prometheus {@code ata_agent_restarts_total}).
 * The meters are in the registry of the agent's configuration while the supervisor runs.
 * Thread-safe.
 */
public final class SupervisedAgent<A extends Agent> implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SupervisedAgent.class);
    private static final Duration FAILED_AGENT_CLOSE = Duration.ofSeconds(10);
    /** The counter of starts over, tagged {@value AgentMetrics#WORKER}. */
    public static final String RESTARTS = "ata.agent.restarts";

    private final Supplier<A> newAgent;
    private final AgentMeters meters;
    private final Clock clock;
    private final AgentRestarts budget = new AgentRestarts();
    private final Thread watcher;
    private final Counter restartCounter;
    private final MeterRegistry registry;
    private A agent;
    private boolean stopping;
    private boolean finished;

    /**
     * @param config the agent's configuration: its meter registry holds the meters
     * @param newAgent makes a new agent with new clients, {@code config} and the workers' meters it
     *     is given
     */
    public SupervisedAgent(AgentConfig config, Function<AgentMeters, A> newAgent, Clock clock) {
        Objects.requireNonNull(newAgent, "newAgent");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.meters = new AgentMeters(config.meterRegistry());
        this.newAgent = () -> newAgent.apply(meters);
        this.registry = config.meterRegistry();
        try {
            this.agent = this.newAgent.get();
        } catch (RuntimeException e) {
            meters.unregister();
            throw e;
        }
        this.restartCounter = Counter.builder(RESTARTS)
                .description("agents started over with new clients after losing their producer's epoch")
                .tag(AgentMetrics.WORKER, agent.workerId())
                .register(registry);
        this.watcher = new Thread(this::watch, "ata-agent-supervisor-" + agent.workerId());
        watcher.setDaemon(true);
    }

    /** Starts the agent on a thread of its own, and the watcher that starts it over. */
    public synchronized void start() {
        agent.start();
        watcher.start();
    }

    /** The agent running now (a new one after each start over). */
    public synchronized A current() {
        return agent;
    }

    public String workerId() {
        return current().workerId();
    }

    /** The meters of the agent's workers, which count on across starts over. */
    public AgentMeters meters() {
        return meters;
    }

    /** How many times the agent was started over. */
    public int restarts() {
        return (int) restartCounter.count(); // it counts on after leaving the registry
    }

    /** True until the agent stopped for good: closed, killed, or failed in a way a start over does not heal. */
    public synchronized boolean isRunning() {
        return !finished && !stopping;
    }

    /** Why the agent stopped for good, if it failed. */
    public Optional<Throwable> failure() {
        return current().failure();
    }

    /** Clean shutdown of the running agent (see {@link WorkerAgent#close(Duration)}). */
    public void close(Duration timeout) {
        A running = stop();
        running.close(timeout);
        joinWatcher();
        removeMeters();
    }

    @Override
    public void close() {
        close(WorkerAgent.DEFAULT_CLOSE_TIMEOUT);
    }

    /** A crash of the running agent, for tests: it is not started over. */
    public void kill() {
        A running = stop();
        running.kill();
        joinWatcher();
        removeMeters();
    }

    /** The meters leave the registry with the supervisor (also when it was never started). */
    private void removeMeters() {
        registry.remove(restartCounter);
        meters.unregister();
    }

    private synchronized A stop() {
        stopping = true;
        return agent;
    }

    private void joinWatcher() {
        if (Thread.currentThread() == watcher || !watcher.isAlive()) {
            return;
        }
        try {
            watcher.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void watch() {
        try {
            while (true) {
                A running = current();
                while (!running.awaitStopped(Duration.ofSeconds(1))) {
                    if (stoppingNow()) {
                        return;
                    }
                }
                Throwable failure = running.failure().orElse(null);
                if (stoppingNow() || failure == null) {
                    return;
                }
                if (!KafkaErrors.isHealedByNewClients(failure)) {
                    LOG.error("agent {} stopped for good: new clients would not heal {}", running.workerId(), failure);
                    return;
                }
                if (!budget.allow(clock.millis())) {
                    // losing it this often is rarely pauses: another process with the same transactional id
                    LOG.error(
                            "agent {} stopped for good: it lost its producer again ({}) after {} starts over in {}."
                                    + " Does another agent run under one of its worker ids {}? (A multi-device"
                                    + " agent's workers are named <worker id>-0, -1, ...: a single agent named"
                                    + " node-0 beside a multi-device node takes its first worker's id.)",
                            running.workerId(),
                            failure.toString(),
                            AgentRestarts.MAX,
                            AgentRestarts.WINDOW,
                            running.workerIds());
                    return;
                }
                LOG.warn(
                        "agent {} lost its producer ({}; e.g. paused past its transaction timeout):"
                                + " starting over with new clients",
                        running.workerId(),
                        failure.toString());
                running.close(FAILED_AGENT_CLOSE);
                synchronized (this) {
                    if (stopping) {
                        return;
                    }
                    agent = newAgent.get();
                    agent.start();
                    restartCounter.increment();
                }
            }
        } catch (RuntimeException e) {
            LOG.error("agent {}: could not start it over", workerId(), e);
        } finally {
            synchronized (this) {
                finished = true;
            }
            removeMeters();
        }
    }

    private synchronized boolean stoppingNow() {
        return stopping;
    }
}
