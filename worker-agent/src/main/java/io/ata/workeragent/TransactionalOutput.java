package io.ata.workeragent;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.Topics;
import io.ata.schemas.decoding.DeadLetters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * {@link AssignmentOutput} for one assignment record, on the agent's {@link TransactionPublisher}:
 * every call's records go out in one Kafka transaction (with other calls' records, when they wait
 * together), and "marking the assignment done" is {@code sendOffsetsToTransaction} with the offset
 * past the record and the consumer's group metadata. So a task's result, its timing and (for the
 * last task) the consumed offset become visible together or not at all: an agent that dies
 * mid-assignment leaves the offset uncommitted and the partition's next owner runs the assignment
 * again.
 *
 * <p>A task that does not complete the assignment is handed to the publisher, which commits it
 * while the agent computes on; the last task, {@link #markDone()} and {@link #deadLetter} return
 * only once committed, together with everything before them. A failed transaction is reported
 * (thrown by the next call, or by {@link #awaitPublished()}) before the assignment's offset can be
 * committed.
 *
 * <p>The offset committed is past the record, unless an older record of its partition is parked
 * ({@link ParkedAssignments#commitOffset}): then it stays at that one, and a parked record, once
 * done, commits past every record done after it.
 *
 * <p>A gradient larger than one Kafka record goes out as several result records, slices of it
 * ({@link ResultSlices}), all in one transaction: a read_committed reader sees all of them or
 * none, so exactly-once holds for chunked results as for the others.
 */
final class TransactionalOutput implements AssignmentOutput {

    private final Producer<String, byte[]> producer;
    private final Supplier<ConsumerGroupMetadata> groupMetadata;
    private final Topics topics;
    private final AgentCodec codec;
    private final ConsumerRecord<byte[], byte[]> source;
    private final TransactionPublisher publisher;
    private final int chunkBytes;
    private final Supplier<String> payloadIds;
    private final ParkedAssignments parked;

    /**
     * @param producer the publisher's producer (asked for the gradients topic's partitions)
     * @param groupMetadata the task consumer's current group metadata (its generation fences
     *     offsets committed by a zombie after a rebalance)
     * @param topics the topic names
     * @param codec Avro encoding
     * @param source the assignment record these outputs belong to
     * @param publisher the agent's transactions
     * @param chunkBytes the most gradient bytes one result record carries
     * @param payloadIds names each publication of a chunked result, uniquely
     * @param parked the agent's parked assignments, which bound the offsets committed
     */
    TransactionalOutput(
            Producer<String, byte[]> producer,
            Supplier<ConsumerGroupMetadata> groupMetadata,
            Topics topics,
            AgentCodec codec,
            ConsumerRecord<byte[], byte[]> source,
            TransactionPublisher publisher,
            int chunkBytes,
            Supplier<String> payloadIds,
            ParkedAssignments parked) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.groupMetadata = Objects.requireNonNull(groupMetadata, "groupMetadata");
        this.topics = Objects.requireNonNull(topics, "topics");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.source = Objects.requireNonNull(source, "source");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.chunkBytes = chunkBytes;
        this.payloadIds = Objects.requireNonNull(payloadIds, "payloadIds");
        this.parked = Objects.requireNonNull(parked, "parked");
    }

    @Override
    public void publishTask(TaskResult result, TaskTiming timing, boolean completesAssignment) {
        Integer partition = resultPartition();
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (TaskResult slice : ResultSlices.of(result, chunkBytes, payloadIds)) {
            records.add(new ProducerRecord<>(
                    topics.gradients().name(), partition, slice.getJob(), codec.encode(topics.gradients(), slice)));
        }
        records.add(new ProducerRecord<>(
                topics.timings().name(), timing.getWorkerId(), codec.encode(topics.timings(), timing)));
        if (completesAssignment) {
            publishAndMarkDone(records);
        } else {
            publisher.publish(records);
        }
    }

    /**
     * The {@code gradients} partition of this assignment's results: its {@code tasks} partition,
     * modulo the count. A tasks partition has one owner at a time, so (with as many partitions of
     * both, the default) no two agents write to the same one, and an agent frozen with a
     * transaction open hides only its own partition's results from the trainer (read_committed
     * stops at the first open transaction of a partition), not the fleet's. Null (the key's
     * partition) while the producer knows no partitions of the topic.
     */
    private Integer resultPartition() {
        List<PartitionInfo> partitions =
                producer.partitionsFor(topics.gradients().name());
        return partitions == null || partitions.isEmpty() ? null : source.partition() % partitions.size();
    }

    /**
     * Waits until everything published through this output is committed.
     *
     * @throws RuntimeException the failure of a transaction, if one failed
     */
    void awaitPublished() {
        publisher.await();
    }

    @Override
    public void markDone() {
        publishAndMarkDone(List.of());
    }

    @Override
    public void deadLetter(DeadLetter letter) {
        publishAndMarkDone(List.of(new ProducerRecord<>(
                topics.deadLetters().name(), DeadLetters.keyOf(letter), codec.encode(topics.deadLetters(), letter))));
    }

    @Override
    public void park(TaskAssignment assignment) {
        parked.park(new ParkedAssignments.Parked(source, assignment, System.nanoTime()));
    }

    /**
     * Publishes {@code records} with the offset past the assignment (or, while an older record of
     * its partition is parked, at that one), and waits for the commit.
     */
    private void publishAndMarkDone(List<ProducerRecord<String, byte[]>> records) {
        TopicPartition partition = new TopicPartition(source.topic(), source.partition());
        // the offset as of the send (and of a send again after a rebalance), so it is past every
        // record done by then: one computed earlier would move the committed offset back
        publisher.publishAndCommit(
                records,
                () -> Map.of(partition, new OffsetAndMetadata(parked.commitOffset(partition, source.offset()))),
                groupMetadata);
        parked.done(partition, source.offset());
    }
}
