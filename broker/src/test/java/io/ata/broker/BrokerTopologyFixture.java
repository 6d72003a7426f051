package io.ata.broker;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.AfterEach;

/**
 * The broker's whole topology under a {@link TopologyTestDriver} with its topics as the parts
 * write and read them, for the tests that drive it round by round. A test starts it with the
 * settings it needs ({@link #startBroker}); it is closed after each test.
 */
abstract class BrokerTopologyFixture {
    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    final Topics topics = new Topics();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    final BrokerMetrics metrics = new BrokerMetrics(meters, "broker-test");
    TopologyTestDriver driver;
    TestInputTopic<String, WorkerHeartbeat> workers;
    TestInputTopic<String, RoundEvent> rounds;
    TestInputTopic<byte[], byte[]> rawRounds;
    TestInputTopic<byte[], byte[]> rawWorkers;
    TestOutputTopic<String, TaskAssignment> tasks;
    TestOutputTopic<String, TaskAssignment> allocations;
    TestOutputTopic<String, DeadLetter> deadLetters;

    /** Builds the topology with {@code settings} under exactly-once, its clock at {@link #START}. */
    void startBroker(BrokerSettings settings) {
        driver = TestDrivers.exactlyOnce(BrokerTopology.build(settings, registry, metrics), "broker-test", START);
        workers = input(topics.workers());
        rounds = input(topics.rounds());
        rawRounds = TestDrivers.rawInput(driver, topics.rounds());
        rawWorkers = TestDrivers.rawInput(driver, topics.workers());
        tasks = TestDrivers.output(driver, topics.tasks(), registry);
        allocations = TestDrivers.output(driver, topics.allocations(), registry);
        deadLetters = TestDrivers.output(driver, topics.deadLetters(), registry);
    }

    @AfterEach
    void stopBroker() {
        driver.close();
    }

    /** Records of {@code topic} as the parts write them, all stamped with the test's start time. */
    <V extends SpecificRecord> TestInputTopic<String, V> input(TopicDef<V> topic) {
        return TestDrivers.input(driver, topic, registry, START);
    }
}
