package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.cli.RunningCommand;
import io.ata.local.kafka.EmbeddedKafka;
import io.ata.local.kafka.TopicSpec;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The in-JVM KRaft broker: plain and transactional records, Streams exactly-once, restarts, {@code ata kafka}. */
@EndToEnd
class EmbeddedKafkaTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** One broker shared by the tests that need no broker of their own. */
    private static EmbeddedKafka kafka;

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.builder().start();
        System.out.printf(
                "embedded Kafka started in %d ms on %s%n", kafka.lastStartTime().toMillis(), kafka.bootstrapServers());
    }

    @AfterAll
    static void stopBroker() {
        Path dir = kafka.logDir();
        kafka.close();
        assertFalse(Files.exists(dir), "temporary log directory deleted on close");
    }

    @Test
    void producesAndConsumesARecord() throws Exception {
        kafka.createTopic("plain", 1, false);
        try (KafkaProducer<String, String> producer = producer(kafka, null)) {
            producer.send(new ProducerRecord<>("plain", "key", "value")).get();
        }
        List<ConsumerRecord<String, String>> records = readAll(kafka, "plain", IsolationLevel.READ_UNCOMMITTED, 1);
        assertEquals(1, records.size());
        assertEquals("key", records.get(0).key());
        assertEquals("value", records.get(0).value());
    }

    @Test
    void createsTopicsWithPartitionsAndCompaction() throws Exception {
        List<String> created = kafka.createTopics(TopicSpec.of("wide", 4), TopicSpec.compacted("latest", 1));
        assertEquals(List.of("wide", "latest"), created);
        assertEquals(List.of(), kafka.createTopics(TopicSpec.of("wide", 4)), "existing topics are left alone");
        try (Admin admin = kafka.admin()) {
            Map<String, TopicDescription> d = admin.describeTopics(List.of("wide", "latest"))
                    .allTopicNames()
                    .get();
            assertEquals(4, d.get("wide").partitions().size());
            assertEquals(1, d.get("latest").partitions().size());
            ConfigResource latest = new ConfigResource(ConfigResource.Type.TOPIC, "latest");
            Config config = admin.describeConfigs(List.of(latest)).all().get().get(latest);
            assertEquals("compact", config.get("cleanup.policy").value());
        }
    }

    @Test
    void committedTransactionsAreVisibleAndAbortedOnesAreNot() throws Exception {
        kafka.createTopic("tx", 1, false);
        try (KafkaProducer<String, String> producer = producer(kafka, "tx-test")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tx", "a", "committed-1"));
            producer.send(new ProducerRecord<>("tx", "a", "committed-2"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tx", "b", "aborted"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tx", "c", "committed-3"));
            producer.commitTransaction();
        }
        List<String> committed = values(readAll(kafka, "tx", IsolationLevel.READ_COMMITTED, 3));
        assertEquals(List.of("committed-1", "committed-2", "committed-3"), committed);
        List<String> everything = values(readAll(kafka, "tx", IsolationLevel.READ_UNCOMMITTED, 4));
        assertEquals(
                List.of("committed-1", "committed-2", "aborted", "committed-3"),
                everything,
                "the aborted record is in the log, only read_committed hides it");
    }

    @Test
    void runsKafkaStreamsExactlyOnceV2() throws Exception {
        kafka.createTopics(TopicSpec.of("words", 1), TopicSpec.of("shouted", 1));
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "eos-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "50");
        props.put(
                StreamsConfig.STATE_DIR_CONFIG,
                Files.createTempDirectory("ata-streams-").toString());
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("words", Consumed.with(Serdes.String(), Serdes.String()))
                .mapValues(v -> v.toUpperCase(java.util.Locale.ROOT))
                .to("shouted", Produced.with(Serdes.String(), Serdes.String()));
        try (KafkaStreams streams = new KafkaStreams(builder.build(), props)) {
            streams.start();
            try (KafkaProducer<String, String> producer = producer(kafka, null)) {
                producer.send(new ProducerRecord<>("words", "k", "hello")).get();
                producer.send(new ProducerRecord<>("words", "k", "kafka")).get();
            }
            List<String> out = values(readAll(kafka, "shouted", IsolationLevel.READ_COMMITTED, 2));
            assertEquals(List.of("HELLO", "KAFKA"), out);
            streams.close(Duration.ofSeconds(10));
        }
    }

    @Test
    void keepsRecordsAcrossARestartWithAKeptDataDir(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("kafka-data");
        try (EmbeddedKafka k = EmbeddedKafka.builder().dataDir(data).start()) {
            String clusterId = k.clusterId();
            String bootstrap = k.bootstrapServers();
            k.createTopic("durable", 2, false);
            try (KafkaProducer<String, String> producer = producer(k, null)) {
                producer.send(new ProducerRecord<>("durable", "k1", "before restart 1"))
                        .get();
                producer.send(new ProducerRecord<>("durable", "k2", "before restart 2"))
                        .get();
            }
            k.stop();
            assertFalse(k.isRunning());
            k.start();
            System.out.printf(
                    "embedded Kafka restarted in %d ms%n", k.lastStartTime().toMillis());
            assertTrue(k.isRunning());
            assertEquals(clusterId, k.clusterId());
            assertEquals(bootstrap, k.bootstrapServers(), "same port after a restart");
            List<String> values = values(readAll(k, "durable", IsolationLevel.READ_COMMITTED, 2));
            assertEquals(Set.of("before restart 1", "before restart 2"), Set.copyOf(values));
            assertEquals(List.of(), k.createTopics(TopicSpec.of("durable", 2)), "the topic survived");
        }
        assertTrue(Files.isRegularFile(data.resolve("meta.properties")), "a given data dir is kept on close");
        // and a new broker on the same directory finds the records too
        try (EmbeddedKafka again = EmbeddedKafka.builder().dataDir(data).start()) {
            assertEquals(
                    2,
                    readAll(again, "durable", IsolationLevel.READ_COMMITTED, 2).size());
        }
    }

    @Test
    void refusesADataDirThatIsNotAKafkaLog(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("notes.txt"), "not Kafka");
        EmbeddedKafka k = EmbeddedKafka.builder().dataDir(dir).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, k::start);
        assertTrue(e.getMessage().contains("not a Kafka log directory"), e.getMessage());
        k.close();
        assertTrue(Files.exists(dir.resolve("notes.txt")));
    }

    @Test
    void reportsAPortInUse() {
        EmbeddedKafka second = EmbeddedKafka.builder().port(kafka.port()).build();
        UncheckedIOException e = assertThrows(UncheckedIOException.class, second::start);
        assertTrue(e.getMessage().contains("in use"), e.getMessage());
        second.close();
    }

    @Test
    void refusesManagedBrokerSettings() {
        assertThrows(
                IllegalArgumentException.class, () -> EmbeddedKafka.builder().brokerProperty("listeners", "x"));
    }

    @Test
    void kafkaCommandPrintsTheBootstrapLineAndStopsWhenInterrupted() throws Exception {
        RunningCommand command = new RunningCommand(
                "kafka",
                "--port",
                "0",
                "--topics",
                "--topic-prefix",
                "cli.",
                "--task-partitions",
                "4",
                "--rounds-partitions",
                "3");
        String bootstrap = command.awaitLine(command.out, RunningCommand.KAFKA_BOOTSTRAP_LINE);
        assertTrue(bootstrap.matches("127\\.0\\.0\\.1:\\d+"), bootstrap);
        assertNotEquals(kafka.bootstrapServers(), bootstrap);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Topics topics = new Topics("cli.", 4, 3);
            Map<String, TopicDescription> d =
                    admin.describeTopics(topics.names()).allTopicNames().get();
            assertEquals(topics.names().size(), d.size());
            assertTrue(
                    d.containsKey("cli.membership") && d.containsKey("cli.optimizer"),
                    d.keySet().toString());
            assertEquals(4, d.get("cli.tasks").partitions().size());
            assertEquals(3, d.get("cli.rounds").partitions().size());
        }
        command.stop();
        assertFalse(command.isRunning(), "ata kafka stops when interrupted\n" + command.transcript());
        assertEquals(0, command.awaitExit(Duration.ZERO), command.transcript());
        assertEquals(
                "bootstrap.servers=" + bootstrap + System.lineSeparator(),
                command.out.toString(),
                "stdout is just the bootstrap line");
    }

    private static KafkaProducer<String, String> producer(EmbeddedKafka k, String transactionalId) {
        Map<String, Object> config = k.clientConfig();
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        if (transactionalId != null) {
            config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(config);
    }

    /**
     * Reads every partition of the topic from the beginning: once it holds at least {@code expected}
     * records (it may still be being written), up to its end, to see any beyond the expected ones.
     */
    private static List<ConsumerRecord<String, String>> readAll(
            EmbeddedKafka k, String topic, IsolationLevel isolation, int expected) {
        Map<String, Object> config = k.clientConfig();
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, WAIT).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            // in this thread: the consumer is not thread-safe; poll() itself waits for records
            ConditionFactory reading = await().atMost(WAIT).pollInSameThread().pollInterval(Duration.ZERO);
            reading.alias(expected + " records on " + topic).until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
                return records.size() >= expected;
            });
            // then on to the end as of now (with read_committed, the last stable offset)
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            reading.alias("the end of " + topic).until(() -> {
                if (partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp))) {
                    return true;
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
                return false;
            });
        }
        return records;
    }

    private static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }
}
