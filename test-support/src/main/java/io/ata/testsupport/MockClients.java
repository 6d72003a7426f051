package io.ata.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's mock clients as the parts use them: producers of String keys and Avro-encoded values
 * (bytes), a one-node cluster for producers that must know topics' partitions, and the consumer
 * records the parts read (bytes, keys in UTF-8).
 */
public final class MockClients {
    private static final Node NODE = new Node(0, "mock", 9092);

    private MockClients() {}

    /** A producer that completes each send at once and knows no topic's partitions. */
    public static MockProducer<String, byte[]> producer() {
        return new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
    }

    /** A producer that completes each send at once and knows {@code cluster}'s topics and partitions. */
    public static MockProducer<String, byte[]> producer(Cluster cluster) {
        return new MockProducer<>(cluster, true, null, new StringSerializer(), new ByteArraySerializer());
    }

    /** A one-node cluster holding each topic with its number of partitions. */
    public static Cluster cluster(Map<String, Integer> partitionsByTopic) {
        List<PartitionInfo> partitions = new ArrayList<>();
        partitionsByTopic.forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                partitions.add(new PartitionInfo(topic, p, NODE, new Node[] {NODE}, new Node[] {NODE}));
            }
        });
        return new Cluster("mock", List.of(NODE), partitions, Set.of(), Set.of());
    }

    /** The record a consumer reads at {@code offset} of {@code topic}'s {@code partition}; a null key stays null. */
    public static ConsumerRecord<byte[], byte[]> consumerRecord(
            String topic, int partition, long offset, String key, byte[] value) {
        return new ConsumerRecord<>(
                topic, partition, offset, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value);
    }
}
