package io.ata.e2e;

import static org.awaitility.Awaitility.await;

import io.ata.local.LocalDeployment;
import io.ata.schemas.TopicDef;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.serde.AvroSerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a whole topic (committed records only), for assertions. */
final class TopicContents {
    private TopicContents() {}

    /** The records of one of {@code local}'s topics that decode as its value type; others are skipped. */
    static <V extends SpecificRecord> List<ConsumerRecord<String, V>> read(LocalDeployment local, TopicDef<V> topic) {
        return read(local.clientProperties(), local.registry(), topic.name(), topic.valueClass());
    }

    /** The values of one of {@code local}'s topics, in topic order per partition. */
    static <V extends SpecificRecord> List<V> values(LocalDeployment local, TopicDef<V> topic) {
        return values(local, topic, v -> true);
    }

    /** The values of one of {@code local}'s topics that {@code keep} accepts. */
    static <V extends SpecificRecord> List<V> values(LocalDeployment local, TopicDef<V> topic, Predicate<V> keep) {
        return read(local, topic).stream()
                .map(ConsumerRecord::value)
                .filter(keep)
                .toList();
    }

    /** The records of {@code topic} that decode as {@code type}; others (e.g. injected garbage) are skipped. */
    static <V extends SpecificRecord> List<ConsumerRecord<String, V>> read(
            Map<String, Object> client, SchemaRegistryClient registry, String topic, Class<V> type) {
        org.apache.kafka.common.serialization.Deserializer<V> decoder = new AvroSerde<>(registry, type).deserializer();
        List<ConsumerRecord<String, V>> out = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> raw : readRaw(client, topic)) {
            try {
                V value = raw.value() == null ? null : decoder.deserialize(topic, raw.value());
                out.add(new ConsumerRecord<>(raw.topic(), raw.partition(), raw.offset(), raw.key(), value));
            } catch (org.apache.kafka.common.errors.SerializationException e) {
                // not a record of this type: skipped
            }
        }
        return out;
    }

    static List<ConsumerRecord<String, byte[]>> readRaw(Map<String, Object> client, String topic) {
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(props(client), new StringDeserializer(), new ByteArrayDeserializer())) {
            return drain(consumer, topic);
        }
    }

    private static Properties props(Map<String, Object> client) {
        Properties p = new Properties();
        p.putAll(client);
        p.put("isolation.level", "read_committed");
        p.put("enable.auto.commit", "false");
        return p;
    }

    private static <V> List<ConsumerRecord<String, V>> drain(KafkaConsumer<String, V> consumer, String topic) {
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
        List<ConsumerRecord<String, V>> out = new ArrayList<>();
        await("reading " + topic + " to its end")
                .atMost(Duration.ofSeconds(30))
                .pollInSameThread() // the consumer is not thread-safe
                .pollInterval(Duration.ZERO) // poll() itself waits for records
                .until(() -> {
                    if (partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp))) {
                        return true;
                    }
                    consumer.poll(Duration.ofMillis(100)).forEach(out::add);
                    return false;
                });
        return out;
    }
}
