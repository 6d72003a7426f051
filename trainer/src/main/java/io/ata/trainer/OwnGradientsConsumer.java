package io.ata.trainer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A trainer's own consumer of {@code gradients}: a static member of its job's group that reads
 * every partition, every job's results (the trainer keeps its job's). The simplest source, and the
 * one a trainer alone in its process uses; a process of many trainers shares one reader instead
 * ({@link TrainerHost}), since each of these reads every job's results.
 */
final class OwnGradientsConsumer implements GradientSource {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    private final String job;
    private final String topic;
    private final org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer;

    /** A consumer of {@code config}'s job's group, not subscribed yet. */
    OwnGradientsConsumer(TrainerConfig config, org.apache.kafka.clients.consumer.Consumer<byte[], byte[]> consumer) {
        this.job = config.job();
        this.topic = config.topics().gradients().name();
        this.consumer = consumer;
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> endOffsets(Duration timeout) {
        List<TopicPartition> partitions = PartitionLookups.of(consumer, topic, timeout);
        if (partitions.isEmpty()) {
            log.warn("topic {} does not exist yet; the trainer will read it from its beginning", topic);
            return Map.of();
        }
        return PartitionLookups.ends(consumer, partitions, timeout);
    }

    @Override
    public void start(Consumer<Collection<TopicPartition>> leaving) {
        consumer.subscribe(List.of(topic), new PartitionsLeavingListener(job, leaving));
    }

    @Override
    public List<ConsumerRecord<byte[], byte[]>> poll(Duration timeout) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        consumer.poll(timeout).forEach(records::add);
        return records;
    }

    @Override
    public Set<TopicPartition> assignment() {
        return consumer.assignment();
    }

    @Override
    public void rewindToCommitted(Set<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(partitions);
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata offset = committed.get(tp);
            if (offset == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, offset);
            }
        }
    }

    @Override
    public ConsumerGroupMetadata groupMetadata() {
        return consumer.groupMetadata();
    }

    @Override
    public void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void close(boolean killed) {
        try {
            // a static member stays in its group unless told; a trainer that ends (not one
            // killed) leaves, so its job's group does not hold the partitions for a session
            consumer.close(CloseOptions.groupMembershipOperation(
                    killed
                            ? CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP
                            : CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        } catch (RuntimeException e) {
            log.debug("closing the consumer", e);
        }
    }
}
