package io.ata.trainer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** A topic's partitions and their ends, as the trainer's readers of {@code gradients} and {@code allocations} look them up. */
final class PartitionLookups {
    private PartitionLookups() {}

    /** Every partition of {@code topic} the consumer knows of; empty if the topic does not exist (yet). */
    static List<TopicPartition> of(Consumer<byte[], byte[]> consumer, String topic, Duration timeout) {
        return of(topic, consumer.partitionsFor(topic, timeout));
    }

    /** As {@link #of(Consumer, String, Duration)}, within the consumer's {@code default.api.timeout.ms}. */
    static List<TopicPartition> of(Consumer<byte[], byte[]> consumer, String topic) {
        return of(topic, consumer.partitionsFor(topic));
    }

    private static List<TopicPartition> of(String topic, List<PartitionInfo> infos) {
        List<TopicPartition> partitions = new ArrayList<>();
        if (infos != null) {
            infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
        }
        return partitions;
    }

    /** The current end of each of {@code partitions}, as offsets to commit. */
    static Map<TopicPartition, OffsetAndMetadata> ends(
            Consumer<byte[], byte[]> consumer, Collection<TopicPartition> partitions, Duration timeout) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        consumer.endOffsets(partitions, timeout).forEach((tp, end) -> offsets.put(tp, new OffsetAndMetadata(end)));
        return offsets;
    }
}
