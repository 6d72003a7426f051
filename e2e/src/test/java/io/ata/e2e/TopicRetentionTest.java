package io.ata.e2e;

import static io.ata.schemas.TopicConfigs.MIB;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.BrokerSettings;
import io.ata.cli.RunningCommand;
import io.ata.local.LocalDeployment;
import io.ata.local.kafka.EmbeddedKafka;
import io.ata.local.kafka.TopicConfigOverrides;
import io.ata.local.kafka.TopicSpec;
import io.ata.schemas.TopicConfigs;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The topics carry their retention on a real broker: what {@code ata kafka --topics} creates
 * (with {@code --topic-config} overrides), what the embedded deployment creates besides (the
 * registry's schemas topic, the broker's changelog, Kafka's own topics), and that retention and
 * compaction then act within seconds, compaction keeping the latest version of every key.
 */
@EndToEnd
class TopicRetentionTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void ataKafkaCreatesEveryTopicWithItsConfigsAndTheOverrides() throws Exception {
        RunningCommand command = new RunningCommand(
                "kafka",
                "--port=0",
                "--topics",
                "--topic-prefix=ret.",
                "--task-partitions=3",
                "--topic-config=timings:retention.ms=-1",
                "--topic-config=timings:retention.bytes=-1",
                "--topic-config=max.message.bytes=2000000");
        StringWriter err = command.err;
        try {
            String bootstrap = command.awaitLine(command.out, RunningCommand.KAFKA_BOOTSTRAP_LINE);
            Topics topics = new Topics("ret.", 3, 1);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                Map<String, Config> configs = describe(admin, ConfigResource.Type.TOPIC, topics.names());
                for (TopicDef<?> topic : topics.all()) {
                    Map<String, String> expected = new LinkedHashMap<>(topic.configs());
                    expected.put("max.message.bytes", "2000000"); // for every topic
                    if (topic.equals(topics.timings())) {
                        expected.put("retention.ms", "-1");
                        expected.put("retention.bytes", "-1");
                    }
                    if (topic.compacted()) {
                        expected.put("cleanup.policy", "compact");
                    }
                    assertConfigs(expected, configs.get(topic.name()), topic.name());
                    assertEquals(
                            topic.compacted() ? "compact" : "delete",
                            configs.get(topic.name()).get("cleanup.policy").value());
                }
                // the embedded broker's own defaults, for Kafka's topics and the others
                Map<String, String> broker = Map.of(
                        "log.retention.check.interval.ms", "2000",
                        "log.segment.delete.delay.ms", "2000",
                        "log.segment.bytes", Long.toString(16 * MIB),
                        "log.index.size.max.bytes", Long.toString(256 * 1024),
                        "offsets.topic.segment.bytes", Long.toString(16 * MIB),
                        "transaction.state.log.segment.bytes", Long.toString(16 * MIB));
                Config brokerConfig = describe(admin, ConfigResource.Type.BROKER, List.of("1"))
                        .get("1");
                broker.forEach((key, value) ->
                        assertEquals(value, brokerConfig.get(key).value(), "broker setting " + key));
            }
            assertTrue(
                    err.toString().contains("topic ret.gradients: 3 partitions, kept 1d or 32 MiB a partition"),
                    err::toString);
            assertTrue(err.toString().contains("topic ret.model: 1 partition, compacted"), err::toString);
            assertTrue(err.toString().contains("topic ret.timings: 1 partition, kept forever"), err::toString);
        } finally {
            command.stop();
        }
        assertFalse(command.isRunning(), "ata kafka stops when interrupted\n" + command.transcript());
        assertEquals(0, command.awaitExit(Duration.ZERO), command.transcript());
    }

    @Test
    void theEmbeddedDeploymentBoundsItsOtherTopicsToo() throws Exception {
        Topics topics = new Topics("dep.", 2, 1);
        try (LocalDeployment deployment = LocalDeployment.embedded(topics, BrokerSettings.defaults())) {
            deployment.startBroker(); // Kafka Streams, exactly once: its changelog and Kafka's own topics
            String changelog = topics.brokerApplicationId() + "-jobs-changelog";
            List<String> others = List.of(topics.schemas(), changelog, "__consumer_offsets", "__transaction_state");
            try (Admin admin = Admin.create(deployment.clientProperties())) {
                await("the changelog and Kafka's own topics")
                        .atMost(WAIT)
                        .until(
                                () -> admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions()
                                                .listInternal(true))
                                        .names()
                                        .get(),
                                names -> names.containsAll(others));
                Map<String, Config> configs = describe(admin, ConfigResource.Type.TOPIC, others);
                for (String topic : others) {
                    Config config = configs.get(topic);
                    assertEquals("compact", config.get("cleanup.policy").value(), topic);
                    assertEquals(
                            Long.toString(16 * MIB), config.get("segment.bytes").value(), topic);
                }
                // the registry's topic and the changelog: all of ATA's compacted topics' configs
                for (String topic : List.of(topics.schemas(), changelog)) {
                    Map<String, String> expected = new LinkedHashMap<>(TopicConfigs.compacted());
                    expected.put("cleanup.policy", "compact");
                    assertConfigs(expected, configs.get(topic), topic);
                }
                // and the project's topics, as ata kafka creates them
                Map<String, Config> project = describe(admin, ConfigResource.Type.TOPIC, topics.names());
                for (TopicDef<?> topic : topics.all()) {
                    assertConfigs(topic.configs(), project.get(topic.name()), topic.name());
                }
            }
        }
    }

    @Test
    void retentionDeletesWithinSecondsAndCompactionKeepsTheLatestVersionOfEveryKey() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().start()) {
            Topics topics = new Topics("act.", 1, 1);
            // the project's gradients and model topics, scaled down by overrides: 1 MiB segments
            List<TopicSpec> specs = TopicConfigOverrides.parse(List.of(
                            "gradients:retention.bytes=" + 2 * MIB,
                            "gradients:segment.bytes=" + MIB,
                            "model:segment.bytes=" + MIB))
                    .specs(topics);
            kafka.createTopics(specs);
            String gradients = topics.gradients().name();
            String model = topics.model().name();
            byte[] slice = new byte[200_000];
            try (KafkaProducer<String, byte[]> producer = producer(kafka)) {
                for (int i = 0; i < 40; i++) { // 8 MB: 4 times what the partition keeps
                    producer.send(new ProducerRecord<>(gradients, 0, "job", slice));
                }
                // 20 versions of a model in 3 slices, keyed as the trainer keys them, and another job's one
                producer.send(new ProducerRecord<>(model, 0, "other#0", "other-v1".getBytes()));
                for (int version = 1; version <= 20; version++) {
                    for (int chunk = 0; chunk < 3; chunk++) {
                        byte[] value = Arrays.copyOf(("v" + version + "#" + chunk).getBytes(), 150_000);
                        producer.send(new ProducerRecord<>(model, 0, "job#" + chunk, value));
                    }
                }
                producer.flush();
            }
            try (Admin admin = kafka.admin()) {
                TopicPartition partition = new TopicPartition(gradients, 0);
                // it keeps less than 2 MiB and a segment (1 MiB): fewer than 16 of the 200 kB records
                long start = await("retention deleting the oldest segments of " + gradients)
                        .atMost(WAIT)
                        .until(
                                () -> admin.listOffsets(Map.of(partition, OffsetSpec.earliest()))
                                        .partitionResult(partition)
                                        .get()
                                        .offset(),
                                offset -> offset > 40 - 16);
                // and at least the 2 MiB: 11 of them
                assertTrue(start <= 40 - 11, "log start offset " + start);
            }
            // compaction: fewer records from the beginning, and every key's latest version
            List<ConsumerRecord<String, byte[]>> kept = await("compaction of " + model)
                    .atMost(WAIT)
                    .until(() -> readAll(kafka, model), records -> records.size() < 30);
            Map<String, String> latest = new HashMap<>();
            for (ConsumerRecord<String, byte[]> r : kept) {
                latest.put(r.key(), new String(r.value()).replace("\0", ""));
            }
            assertEquals(
                    Map.of("job#0", "v20#0", "job#1", "v20#1", "job#2", "v20#2", "other#0", "other-v1"),
                    latest,
                    "the latest version of every key, read from the beginning");
        }
    }

    private static void assertConfigs(Map<String, String> expected, Config actual, String topic) {
        expected.forEach((key, value) -> {
            ConfigEntry entry = actual.get(key);
            assertEquals(value, entry.value(), topic + " " + key);
            assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, entry.source(), topic + " " + key + " source");
        });
    }

    private static Map<String, Config> describe(Admin admin, ConfigResource.Type type, List<String> names)
            throws Exception {
        List<ConfigResource> resources =
                names.stream().map(n -> new ConfigResource(type, n)).toList();
        Map<String, Config> byName = new HashMap<>();
        admin.describeConfigs(resources).all().get().forEach((r, c) -> byName.put(r.name(), c));
        return byName;
    }

    private static KafkaProducer<String, byte[]> producer(EmbeddedKafka kafka) {
        Map<String, Object> config = kafka.clientConfig();
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 1); // a batch per record, so segments fill record by record
        return new KafkaProducer<>(config);
    }

    /** The topic's one partition from its beginning to its current end. */
    private static List<ConsumerRecord<String, byte[]>> readAll(EmbeddedKafka kafka, String topic) {
        Map<String, Object> config = kafka.clientConfig();
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        }
        return records;
    }
}
