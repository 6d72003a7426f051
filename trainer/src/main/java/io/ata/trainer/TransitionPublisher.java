package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.Evaluation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes what the job moves on with ({@link TransitionRecords}) in one Kafka transaction on the
 * trainer's transactional producer, together with the consumer offsets of the gradients that made
 * it: all of it becomes visible, or none. Keeps track of the open transaction, so that it can be
 * aborted after an error or at a stop.
 */
final class TransitionPublisher {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    /** Times a timed-out commit is tried again before the trainer gives up. */
    static final int COMMIT_ATTEMPTS = 5;

    private final Producer<String, byte[]> producer;
    private final Supplier<ConsumerGroupMetadata> groupMetadata;
    private final TransitionRecords records;
    private final StopRequest stop;
    private boolean transactionOpen;

    /**
     * @param producer      a transactional producer, its transactions initialized
     * @param groupMetadata the gradients consumer's group metadata (its generation fences offsets
     *                      a zombie commits)
     */
    TransitionPublisher(
            Producer<String, byte[]> producer,
            Supplier<ConsumerGroupMetadata> groupMetadata,
            TransitionRecords records,
            StopRequest stop) {
        this.producer = producer;
        this.groupMetadata = groupMetadata;
        this.records = records;
        this.stop = stop;
    }

    /**
     * One transaction: {@code transition} with the {@code evaluations} ready to publish and the
     * round's {@code deadLetters}, and {@code offsets} as the group's committed offsets.
     *
     * @throws CancellationException if the trainer is killed before the commit (the transaction
     *     is left open, for {@link #close} to abort)
     */
    void publish(
            Transition transition,
            List<Evaluation> evaluations,
            List<DeadLetter> deadLetters,
            Map<TopicPartition, OffsetAndMetadata> offsets) {
        send(records.of(transition, evaluations, deadLetters), offsets);
    }

    /**
     * One transaction of evaluations alone, no offsets: the last ones of a job that ended or of a
     * trainer that stops.
     *
     * @throws CancellationException if the trainer is killed before the commit
     */
    void publishEvaluations(List<Evaluation> evaluations) {
        send(records.evaluations(evaluations), Map.of());
    }

    /**
     * One transaction of dead letters alone, no offsets: letters that should not wait for the
     * round's close.
     *
     * @throws CancellationException if the trainer is killed before the commit
     */
    void publishLetters(List<DeadLetter> deadLetters) {
        send(records.deadLetters(deadLetters), Map.of());
    }

    private void send(List<ProducerRecord<String, byte[]>> batch, Map<TopicPartition, OffsetAndMetadata> offsets) {
        producer.beginTransaction();
        transactionOpen = true;
        batch.forEach(producer::send);
        if (!offsets.isEmpty()) {
            producer.sendOffsetsToTransaction(offsets, groupMetadata.get());
        }
        if (stop.killed()) {
            throw new CancellationException("killed before commit");
        }
        commit();
        transactionOpen = false;
    }

    /**
     * Commits the open transaction. A commit that timed out may or may not have happened, and
     * Kafka does not allow aborting it: the rule is to call commit again until it answers.
     */
    private void commit() {
        for (int attempt = 1; ; attempt++) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                if (stop.killed()) {
                    throw new CancellationException("killed while committing");
                }
                if (attempt >= COMMIT_ATTEMPTS) {
                    // not a KafkaException: fatal, the outcome is unknown and cannot be settled here
                    throw new IllegalStateException(
                            "the commit of job " + records.job() + " did not complete after " + attempt + " attempts",
                            e);
                }
                log.warn("job {}: commit timed out, retrying ({} of {})", records.job(), attempt, COMMIT_ATTEMPTS);
            }
        }
    }

    /** Aborts the open transaction, if one is open; a failure to abort is thrown (fenced: fatal). */
    void abortIfOpen() {
        if (transactionOpen) {
            producer.abortTransaction();
            transactionOpen = false;
        }
    }

    /** Aborts the open transaction, if any, and closes the producer; logs rather than throws. */
    void close(Duration timeout) {
        try {
            abortIfOpen();
        } catch (RuntimeException e) {
            log.debug("aborting the open transaction", e);
        }
        try {
            producer.close(timeout);
        } catch (RuntimeException e) {
            log.debug("closing the producer", e);
        }
    }
}
