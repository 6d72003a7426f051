package io.ata.trainer;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Where a trainer reads its job's results on {@code gradients}, and how it goes back to the
 * offsets its job's group committed with the last closed round. Two kinds: a consumer of its own,
 * a member of the job's group ({@link OwnGradientsConsumer}: one trainer in a process), or the
 * job's share of a {@link TrainerHost}'s one reader ({@link HostedGradients}: many trainers in one
 * process, each record read once). Used by the trainer thread only, {@link #wakeup()} apart.
 */
interface GradientSource {
    /**
     * The current end of every {@code gradients} partition: where a new job starts reading,
     * committed with its first transaction, so that no result from before it counts and none
     * after its {@code OPENED 1} is missed. Empty if the topic does not exist yet.
     */
    Map<TopicPartition, OffsetAndMetadata> endOffsets(Duration timeout);

    /**
     * Starts reading at the group's committed offsets. {@code leaving} is told, on the trainer
     * thread inside {@link #poll}, of partitions taken away mid-round (a group member can lose
     * them to another; a hosted source never does).
     */
    void start(Consumer<Collection<TopicPartition>> leaving);

    /** The job's records read next (a hosted source returns its job's only), waiting up to {@code timeout}. */
    List<ConsumerRecord<byte[], byte[]>> poll(Duration timeout);

    /** The partitions read now: where a dropped round is read again from. */
    Set<TopicPartition> assignment();

    /** Goes back to the group's committed offsets on {@code partitions}: the open round is read again. */
    void rewindToCommitted(Set<TopicPartition> partitions);

    /** The metadata sent with the offsets of a round's transaction (a member's generation fences a zombie's). */
    ConsumerGroupMetadata groupMetadata();

    /** Makes a {@link #poll} under way, or the next one, throw {@code WakeupException}; any thread. */
    void wakeup();

    /** Releases the clients; a killed trainer's group member stays in its group until its session ends. */
    void close(boolean killed);
}
