package io.ata.schemas.kafka;

import io.ata.schemas.DeadLetter;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Builds the {@link DeadLetter} of an input record a part could not use: where it came from, its
 * raw key and value (so an operator can decode or replay it), why it was refused, and which part
 * refused it. One instance per part, named by its {@link #component()}.
 *
 * <p>Every part writes its dead letters with the <em>source topic</em> as key ({@link #keyOf}),
 * as {@code Topics.deadLetters()} declares (key field {@code source_topic}).
 */
public final class DeadLetters {
    /** The {@code component} of the broker's dead letters. */
    public static final String BROKER = "broker";
    /** The {@code component} of the trainer's dead letters. */
    public static final String TRAINER = "trainer";
    /** The {@code component} of the worker agents' dead letters. */
    public static final String WORKER_AGENT = "worker-agent";

    private final String component;

    /** A builder of the dead letters of {@code component}, e.g. {@link #TRAINER}. */
    public DeadLetters(String component) {
        this.component = Objects.requireNonNull(component, "component");
    }

    /** The part whose dead letters these are. */
    public String component() {
        return component;
    }

    /**
     * The dead letter of a record a consumer read.
     *
     * @param source the refused record, exactly as read
     * @param reason why, for a human; {@code null} to use the error's description
     * @param error the exception behind it, or {@code null} for a value out of range
     * @param nowMs wall-clock time, epoch milliseconds
     */
    public DeadLetter of(ConsumerRecord<byte[], byte[]> source, String reason, Throwable error, long nowMs) {
        return of(
                source.topic(),
                source.partition(),
                source.offset(),
                source.key(),
                source.value(),
                reason,
                error,
                nowMs);
    }

    /**
     * The dead letter of a record given by its position and raw bytes (for readers that are not a
     * consumer, e.g. a Kafka Streams processor).
     *
     * @param sourceTopic where the record came from; empty if unknown
     * @param partition its partition, -1 if unknown
     * @param offset its offset, -1 if unknown
     * @param key its raw key, may be null
     * @param value its raw value, may be null
     * @param reason why, for a human; {@code null} to use the error's description
     * @param error the exception behind it, or {@code null} for a value out of range
     * @param nowMs wall-clock time, epoch milliseconds
     */
    public DeadLetter of(
            String sourceTopic,
            int partition,
            long offset,
            byte[] key,
            byte[] value,
            String reason,
            Throwable error,
            long nowMs) {
        return DeadLetter.newBuilder()
                .setSourceTopic(sourceTopic)
                .setPartition(partition)
                .setOffset(offset)
                .setKey(key == null ? null : ByteBuffer.wrap(key))
                .setValue(value == null ? null : ByteBuffer.wrap(value))
                .setReason(reason != null ? reason : String.valueOf(error))
                .setErrorClass(error == null ? "" : error.getClass().getName())
                .setComponent(component)
                .setTimestampMs(nowMs)
                .build();
    }

    /** The key to write {@code letter} with: its source topic. */
    public static String keyOf(DeadLetter letter) {
        return letter.getSourceTopic();
    }
}
