package io.ata.agent;

import io.ata.schemas.DeadLetter;
import java.nio.ByteBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Builds the {@link DeadLetter} of an input record: where it came from, its raw bytes (so an
 * operator can decode or replay it) and why it was refused.
 */
public final class DeadLetters {

    /** The {@code component} field of every dead letter this agent writes. */
    public static final String COMPONENT = "worker-agent";

    private DeadLetters() {}

    /**
     * @param record the refused record, exactly as read
     * @param reason why, for a human
     * @param error the exception behind it, or {@code null} for an out-of-range value
     * @param nowMs wall-clock time, epoch milliseconds
     */
    public static DeadLetter of(ConsumerRecord<byte[], byte[]> record, String reason, Throwable error, long nowMs) {
        return DeadLetter.newBuilder()
                .setSourceTopic(record.topic())
                .setPartition(record.partition())
                .setOffset(record.offset())
                .setKey(record.key() == null ? null : ByteBuffer.wrap(record.key()))
                .setValue(record.value() == null ? null : ByteBuffer.wrap(record.value()))
                .setReason(reason != null ? reason : String.valueOf(error))
                .setErrorClass(error == null ? "" : error.getClass().getName())
                .setComponent(COMPONENT)
                .setTimestampMs(nowMs)
                .build();
    }
}
