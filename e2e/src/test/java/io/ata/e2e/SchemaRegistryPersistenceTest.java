package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.kafka.EmbeddedKafka;
import io.ata.platform.registry.SchemaRegistryServer;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.CompatibilityLevel;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.RestSchemaRegistryClient;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.schemas.registry.SchemaVersion;
import io.ata.testsupport.EndToEnd;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The embedded Schema Registry kept in its Kafka topic: a new instance on the same topic, as after
 * a broker restart, serves the same ids, versions and compatibility levels.
 */
@EndToEnd
class SchemaRegistryPersistenceTest {

    private static final Schema TIMING = TaskTiming.getClassSchema();
    private static final Schema TASKS = TaskAssignment.getClassSchema();
    private static final Schema ROUNDS = RoundEvent.getClassSchema();

    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.builder().start();
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    private static EmbeddedSchemaRegistry open(String topic) {
        return EmbeddedSchemaRegistry.persistent(kafka.clientConfig(), topic);
    }

    @Test
    void aRestartedRegistryServesTheSameIdsVersionsAndLevels() throws Exception {
        String topic = new Topics("restart.").schemas();
        int timings;
        int tasks;
        try (EmbeddedSchemaRegistry first = open(topic)) {
            timings = first.register("restart.timings-value", TIMING);
            tasks = first.register("restart.tasks-value", TASKS);
            first.setCompatibility(CompatibilityLevel.FULL);
            first.setCompatibility("things-value", CompatibilityLevel.NONE); // so unrelated schemas are versions
            first.register("things-value", TIMING);
            first.register("things-value", TASKS);
        }
        assertEquals(List.of(1, 2), List.of(timings, tasks));

        try (EmbeddedSchemaRegistry second = open(topic)) {
            assertEquals(TIMING, second.getById(timings));
            assertEquals(TASKS, second.getById(tasks));
            assertEquals(new SchemaVersion("things-value", 2, tasks, TASKS), second.latest("things-value"));
            assertEquals(new SchemaVersion("things-value", 1, timings, TIMING), second.version("things-value", 1));
            assertEquals(List.of("restart.tasks-value", "restart.timings-value", "things-value"), second.subjects());
            assertEquals(CompatibilityLevel.FULL, second.compatibility());
            assertEquals(
                    CompatibilityLevel.NONE,
                    second.compatibility("things-value").orElseThrow());
            // re-registering changes nothing; a new schema gets the next id, not one already taken
            assertEquals(timings, second.register("restart.timings-value", TIMING));
            assertEquals(3, second.register("restart.rounds-value", ROUNDS));
            assertEquals(7, endOffset(topic), "six entries before, one new schema: nothing written twice");
        }
        try (EmbeddedSchemaRegistry third = open(topic)) {
            assertEquals(ROUNDS, third.getById(3));
        }
    }

    @Test
    void theTopicIsCompactedWithOnePartition() throws Exception {
        String topic = new Topics("shape.").schemas();
        open(topic).close();
        try (Admin admin = kafka.admin()) {
            assertEquals(
                    1,
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get()
                            .get(topic)
                            .partitions()
                            .size());
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
            assertEquals(
                    TopicConfig.CLEANUP_POLICY_COMPACT,
                    config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value());
        }
    }

    @Test
    void anIncompatibleSchemaIsRefusedOverHttpAndNotWritten() throws Exception {
        String topic = new Topics("compat.").schemas();
        try (EmbeddedSchemaRegistry registry = open(topic);
                SchemaRegistryServer server = SchemaRegistryServer.start(registry)) {
            RestSchemaRegistryClient client =
                    RestSchemaRegistryClient.builder(server.url()).build();
            client.register("things-value", TIMING);
            long before = endOffset(topic);
            // BACKWARD: TaskAssignment cannot read TaskTiming data (another name, fields without defaults)
            SchemaRegistryException refused =
                    assertThrows(SchemaRegistryException.class, () -> client.register("things-value", TASKS));
            assertEquals(409, refused.httpStatus());
            assertEquals(409, refused.errorCode());
            assertEquals(before, endOffset(topic), "a refused schema leaves no record");
        }
        try (EmbeddedSchemaRegistry reopened = open(topic)) {
            assertEquals(List.of(1), reopened.versions("things-value"));
        }
    }

    @Test
    void aRecordThatIsNoRegistryEntryIsSkipped() throws Exception {
        String topic = new Topics("garbage.").schemas();
        try (EmbeddedSchemaRegistry registry = open(topic)) {
            registry.register("things-value", TIMING);
        }
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(kafka.clientConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] junk = "not json".getBytes(StandardCharsets.UTF_8);
            producer.send(new ProducerRecord<>(topic, junk, junk)).get();
            producer.send(new ProducerRecord<>(topic, "{\"keytype\":\"NOOP\"}".getBytes(StandardCharsets.UTF_8), junk))
                    .get();
        }
        try (EmbeddedSchemaRegistry registry = open(topic)) {
            assertEquals(TIMING, registry.latest("things-value").schema());
            assertEquals(2, registry.register("tasks-value", TASKS), "still writes after the junk");
        }
    }

    @Test
    void aTopicWithSeveralPartitionsIsRefused() {
        String topic = "wide-schemas";
        kafka.createTopic(topic, 2, true);
        SchemaRegistryException refused = assertThrows(SchemaRegistryException.class, () -> open(topic));
        assertTrue(refused.getMessage().contains("must have exactly 1 partition"), refused.getMessage());
    }

    private static long endOffset(String topic) throws Exception {
        try (Admin admin = kafka.admin()) {
            TopicPartition partition = new TopicPartition(topic, 0);
            return admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                    .partitionResult(partition)
                    .get()
                    .offset();
        }
    }
}
