package io.ata.e2e;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.workeragent.AgentConfig;
import io.ata.workloads.time.TaskTimeDistribution;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The setup most live tests share: an embedded {@link LocalDeployment} (Kafka in KRaft mode and a
 * schema registry) with the ATA broker running and the agents named here, every one a member the
 * broker sees. As a JUnit extension it starts a fresh one before each test and closes it after,
 * and hands it to the test methods (and {@code @BeforeEach} methods) that take a {@code
 * LocalDeployment} parameter:
 *
 * <pre>{@code
 * @RegisterExtension
 * final EmbeddedFleet fleet = EmbeddedFleet.of("open-txn.", 4).agents(LocalDeployment.aboutMs(5), "agent-1", "agent-2");
 *
 * @Test
 * void trains(LocalDeployment local) { ... }
 * }</pre>
 *
 * A test that starts its deployment itself, or more than one, calls {@link #start()}.
 */
final class EmbeddedFleet implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    /** How long the agents have to join: a rebalance or two on a busy machine. */
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);

    private final Topics topics;
    private BrokerSettings settings = LocalDeployment.QUICK_LIVENESS;
    private Consumer<LocalDeployment> beforeBroker = local -> {};
    private boolean checkAllocation;
    private final List<Function<LocalDeployment, AgentConfig>> agents = new ArrayList<>();
    private LocalDeployment local;

    private EmbeddedFleet(Topics topics) {
        this.topics = topics;
    }

    /**
     * A deployment with topics prefixed {@code topicPrefix}, {@code taskPartitions} task partitions
     * and {@link LocalDeployment#QUICK_LIVENESS}, so that a killed agent is noticed within seconds.
     */
    static EmbeddedFleet of(String topicPrefix, int taskPartitions) {
        return new EmbeddedFleet(new Topics(topicPrefix).withTaskPartitions(taskPartitions));
    }

    /** The broker's settings, in place of {@link LocalDeployment#QUICK_LIVENESS}. */
    EmbeddedFleet settings(BrokerSettings brokerSettings) {
        this.settings = brokerSettings;
        return this;
    }

    /**
     * After each test, check that the broker allocated as its settings ask: rounds planned ahead
     * under pipelined allocation, none without ({@link RoundsPlannedAhead}). For tests whose job
     * runs past round 3, under both allocations.
     */
    EmbeddedFleet checkingAllocation() {
        this.checkAllocation = true;
        return this;
    }

    /** A step on the embedded cluster before the broker starts, such as a topic's configuration. */
    EmbeddedFleet beforeBroker(Consumer<LocalDeployment> step) {
        this.beforeBroker = step;
        return this;
    }

    /** An agent whose every task takes a time drawn from {@code time} (milliseconds). */
    EmbeddedFleet agent(String workerId, TaskTimeDistribution time) {
        return agent(local -> local.agentConfig(workerId).emulatedTime(time).build());
    }

    /** Agents {@code workerIds}, all with task times drawn from {@code time}. */
    EmbeddedFleet agents(TaskTimeDistribution time, String... workerIds) {
        for (String workerId : workerIds) {
            agent(workerId, time);
        }
        return this;
    }

    /**
     * Agents agent-1, agent-2, ... whose tasks take {@link LocalDeployment#aboutMs} {@code
     * meanMs[i]} each, as {@link LocalDeployment#startFleet} starts them.
     */
    EmbeddedFleet agentsOfMeanMs(double... meanMs) {
        for (int i = 0; i < meanMs.length; i++) {
            agent("agent-" + (i + 1), LocalDeployment.aboutMs(meanMs[i]));
        }
        return this;
    }

    /** An agent of the settings {@code config} makes from the deployment's defaults. */
    EmbeddedFleet agent(Function<LocalDeployment, AgentConfig> config) {
        agents.add(config);
        return this;
    }

    /**
     * Starts the deployment: the cluster, the broker, then the agents, and waits until the broker
     * sees them all. What has started is closed again if a step fails.
     */
    LocalDeployment start() throws InterruptedException {
        LocalDeployment started = LocalDeployment.embedded(topics, settings);
        try {
            beforeBroker.accept(started);
            started.startBroker();
            for (Function<LocalDeployment, AgentConfig> config : agents) {
                started.startAgent(config.apply(started));
            }
            if (!agents.isEmpty()) {
                started.awaitFleet(JOIN_TIMEOUT);
            }
            return started;
        } catch (InterruptedException | RuntimeException e) {
            started.close();
            throw e;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws InterruptedException {
        local = start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (local != null) {
            try {
                if (checkAllocation) {
                    RoundsPlannedAhead.assertAsSet(local, settings);
                }
            } finally {
                local.close();
                local = null;
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LocalDeployment.class;
    }

    @Override
    public LocalDeployment resolveParameter(ParameterContext parameter, ExtensionContext context) {
        if (local == null) {
            throw new ParameterResolutionException("the embedded deployment has not started");
        }
        return local;
    }
}
