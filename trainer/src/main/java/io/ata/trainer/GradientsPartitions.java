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

/** The partitions of the {@code gradients} topic and their ends, as the trainer's sources look them up. */
final class GradientsPartitions {
    private GradientsPartitions() {}

    /** Every partition of {@code topic} the consumer knows of; empty if the topic does not exist (yet). */
    static List<TopicPartition> of(Consumer<byte[], byte[]> consumer, String topic, Duration timeout) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
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
