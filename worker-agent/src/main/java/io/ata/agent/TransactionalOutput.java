package io.ata.agent;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.Topics;
import io.ata.schemas.kafka.DeadLetters;
import io.ata.schemas.kafka.KafkaErrors;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link AssignmentOutput} for one assignment record, on a transactional producer: every call is
 * one Kafka transaction, and "marking the assignment done" is {@code sendOffsetsToTransaction}
 * with the offset past the record and the consumer's group metadata. So a task's result, its
 * timing and (for the last task) the consumed offset become visible together or not at all: an
 * agent that dies mid-assignment leaves the offset uncommitted and the partition's next owner
 * runs the assignment again.
 *
 * <p>A task that does not complete the assignment commits in the background ({@link BackgroundCommit})
 * while the agent computes the next one; every other call waits for that commit first, so the
 * transactions stay in order and a failed one is reported (thrown by the next call, or by
 * {@link #awaitPublished()}) before the assignment's offset can be committed. The last task,
 * {@link #markDone()} and {@link #deadLetter} commit before they return.
 *
 * <p>A gradient larger than one Kafka record goes out as several result records, slices of it
 * ({@link ResultSlices}), all in the task's one transaction: a read_committed reader sees all of
 * them or none, so exactly-once holds for chunked results as for the others.
 *
 * <p>On a failure the open transaction is aborted (unless the producer is fenced or otherwise
 * fatally broken, when only closing it is left) and the exception is rethrown.
 */
final class TransactionalOutput implements AssignmentOutput {

    private static final Logger log = LoggerFactory.getLogger(TransactionalOutput.class);

    private final Producer<String, byte[]> producer;
    private final Supplier<ConsumerGroupMetadata> groupMetadata;
    private final Topics topics;
    private final AgentCodec codec;
    private final ConsumerRecord<byte[], byte[]> source;
    private final BackgroundCommit background;
    private final AgentMetrics metrics;
    private final int chunkBytes;
    private final Supplier<String> payloadIds;

    /**
     * @param producer a producer with {@code transactional.id}, transactions initialized
     * @param groupMetadata the task consumer's current group metadata (its generation fences
     *     offsets committed by a zombie after a rebalance)
     * @param topics the topic names
     * @param codec Avro encoding
     * @param source the assignment record these outputs belong to
     * @param background the agent's commit thread
     * @param chunkBytes the most gradient bytes one result record carries
     * @param payloadIds names each publication of a chunked result, uniquely
     * @param metrics counts the transactions committed and aborted
     */
    TransactionalOutput(
            Producer<String, byte[]> producer,
            Supplier<ConsumerGroupMetadata> groupMetadata,
            Topics topics,
            AgentCodec codec,
            ConsumerRecord<byte[], byte[]> source,
            BackgroundCommit background,
            int chunkBytes,
            Supplier<String> payloadIds,
            AgentMetrics metrics) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.groupMetadata = Objects.requireNonNull(groupMetadata, "groupMetadata");
        this.topics = Objects.requireNonNull(topics, "topics");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.source = Objects.requireNonNull(source, "source");
        this.background = Objects.requireNonNull(background, "background");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.chunkBytes = chunkBytes;
        this.payloadIds = Objects.requireNonNull(payloadIds, "payloadIds");
    }

    @Override
    public void publishTask(TaskResult result, TaskTiming timing, boolean completesAssignment) {
        List<TaskResult> records = ResultSlices.of(result, chunkBytes, payloadIds);
        Integer partition = resultPartition();
        Runnable sends = () -> {
            for (TaskResult record : records) {
                producer.send(new ProducerRecord<>(
                        topics.gradients().name(),
                        partition,
                        record.getJob(),
                        codec.encode(topics.gradients(), record)));
            }
            producer.send(new ProducerRecord<>(
                    topics.timings().name(), timing.getWorkerId(), codec.encode(topics.timings(), timing)));
        };
        inTransaction(sends, completesAssignment);
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
     * @throws RuntimeException the failure of a background commit, if one failed
     */
    void awaitPublished() {
        background.await();
    }

    @Override
    public void markDone() {
        inTransaction(() -> {}, true);
    }

    @Override
    public void deadLetter(DeadLetter letter) {
        inTransaction(
                () -> producer.send(new ProducerRecord<>(
                        topics.deadLetters().name(),
                        DeadLetters.keyOf(letter),
                        codec.encode(topics.deadLetters(), letter))),
                true);
    }

    /**
     * Runs {@code sends} in a new transaction. One that completes the assignment also commits its
     * offset and commits before returning; any other commits on the commit thread.
     */
    private void inTransaction(Runnable sends, boolean completesAssignment) {
        background.await();
        producer.beginTransaction();
        try {
            sends.run();
            if (completesAssignment) {
                producer.sendOffsetsToTransaction(
                        Map.of(
                                new TopicPartition(source.topic(), source.partition()),
                                new OffsetAndMetadata(source.offset() + 1)),
                        groupMetadata.get());
                producer.commitTransaction();
                metrics.transactionCommitted();
            } else {
                background.start(this::commitOrAbort); // throws if not started (the agent is closing)
            }
        } catch (RuntimeException e) {
            abortUnlessFatal(e);
            throw e;
        }
    }

    /** The commit thread's part: an abort after a failed commit is its to do, as the caller has gone on. */
    private void commitOrAbort() {
        try {
            producer.commitTransaction();
            metrics.transactionCommitted();
        } catch (RuntimeException e) {
            abortUnlessFatal(e);
            throw e;
        }
    }

    private void abortUnlessFatal(RuntimeException e) {
        if (!KafkaErrors.isFatal(e)) {
            abort(e);
        }
    }

    /**
     * Aborts the open transaction after {@code cause}. Clears a pending interrupt for the time of
     * the call (a killed agent still aborts, so read_committed readers are not held up until the
     * transaction times out) and restores it afterwards.
     */
    private void abort(RuntimeException cause) {
        boolean interrupted = Thread.interrupted();
        try {
            producer.abortTransaction();
            metrics.transactionAborted();
        } catch (RuntimeException e) {
            log.error("cannot abort the transaction after {}: {}", cause.toString(), e.toString());
            IllegalStateException broken = new IllegalStateException("transactional producer is unusable", e);
            broken.addSuppressed(cause);
            throw broken;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
