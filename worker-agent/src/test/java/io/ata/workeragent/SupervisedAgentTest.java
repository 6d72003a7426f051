package io.ata.workeragent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.platform.kafka.KafkaErrors;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.MockClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The supervisor's decisions, over agents on Kafka's mock clients whose producer fails as told;
 * {@code AgentEpochLossTest} (e2e) takes a real agent's epoch on a real cluster.
 */
class SupervisedAgentTest {
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final AtomicInteger agentsMade = new AtomicInteger();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private SupervisedAgent<WorkerAgent> supervised;

    @AfterEach
    void stop() {
        if (supervised != null) {
            supervised.kill();
        }
    }

    private final AgentConfig config = AgentConfig.builder("mock:9092")
            .workerId("w1")
            .heartbeatInterval(Duration.ofHours(1))
            .meterRegistry(meters)
            .build();

    /** Agents whose transactions fail to start with {@code error} (none if null). */
    private Function<AgentMeters, WorkerAgent> agents(RuntimeException error) {
        return agentsFailing(n -> error);
    }

    /** Agents whose transactions fail to start with {@code errorOf} the agent's number, from 0 (none if null). */
    private Function<AgentMeters, WorkerAgent> agentsFailing(IntFunction<RuntimeException> errorOf) {
        KafkaClientFactory clients = new KafkaClientFactory() {
            @Override
            public Producer<String, byte[]> producer(Map<String, Object> config) {
                MockProducer<String, byte[]> producer = MockClients.producer();
                if (config.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
                    producer.initTransactionException = errorOf.apply(agentsMade.get() - 1);
                }
                return producer;
            }

            @Override
            public Consumer<byte[], byte[]> consumer(Map<String, Object> config) {
                return new MockConsumer<>("earliest");
            }
        };
        return meters -> {
            agentsMade.incrementAndGet();
            AgentMetrics metrics = meters.of("w1");
            metrics.retry(); // one count per agent made, to see the meters count on across them
            return new WorkerAgent(config, registry, clients, Clock.systemUTC(), metrics);
        };
    }

    private void awaitStoppedForGood() {
        await("the supervisor gives up").atMost(Duration.ofSeconds(30)).until(() -> !supervised.isRunning());
    }

    @Test
    void anAgentThatKeepsLosingItsEpochStartsOverThreeTimesThenStopsForGood() {
        supervised =
                new SupervisedAgent<>(config, agents(new ProducerFencedException("epoch bumped")), Clock.systemUTC());
        supervised.start();

        awaitStoppedForGood();
        assertEquals(AgentRestarts.MAX, supervised.restarts());
        assertEquals(AgentRestarts.MAX + 1, agentsMade.get(), "a new agent, with new clients, each time");
        assertTrue(KafkaErrors.isHealedByNewClients(supervised.failure().orElseThrow()));
    }

    @Test
    void anAgentThatLostItsEpochOnceRunsOnAsANewOneAndTheStartOverIsCounted() {
        supervised = new SupervisedAgent<>(
                config,
                agentsFailing(n -> n == 0 ? new ProducerFencedException("epoch bumped") : null),
                Clock.systemUTC());
        supervised.start();

        await().atMost(Duration.ofSeconds(30))
                .until(() -> supervised.restarts() == 1 && supervised.current().isRunning());
        assertTrue(supervised.isRunning());
        assertEquals(2, agentsMade.get());
        assertEquals(
                1,
                meters.get(SupervisedAgent.RESTARTS)
                        .tag(AgentMetrics.WORKER, "w1")
                        .counter()
                        .count());

        assertEquals(
                2,
                meters.get(AgentMetrics.RETRIES)
                        .tag(AgentMetrics.WORKER, "w1")
                        .counter()
                        .count(),
                "the new agent counts on where the first stopped");
        assertEquals(2, supervised.current().metrics().retries());

        supervised.close(Duration.ofSeconds(10));
        assertTrue(meters.find(SupervisedAgent.RESTARTS).counters().isEmpty(), "it leaves with the supervisor");
        assertTrue(meters.find(AgentMetrics.RETRIES).counters().isEmpty(), "so do the agent's meters");
    }

    @Test
    void anyOtherFailureIsFinal() {
        supervised = new SupervisedAgent<>(config, agents(new KafkaException("broken")), Clock.systemUTC());
        supervised.start();

        awaitStoppedForGood();
        assertEquals(0, supervised.restarts());
        assertEquals(1, agentsMade.get());
        assertEquals("broken", supervised.failure().orElseThrow().getMessage());
    }

    @Test
    void aClosedAgentIsNotStartedOver() {
        supervised = new SupervisedAgent<>(config, agents(null), Clock.systemUTC());
        supervised.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> supervised.current().isRunning());

        supervised.close(Duration.ofSeconds(10));
        assertFalse(supervised.isRunning());
        assertFalse(supervised.current().isRunning());
        assertEquals(0, supervised.restarts());
        assertEquals(1, agentsMade.get());
    }
}
