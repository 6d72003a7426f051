package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import java.nio.ByteBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Builds the dead-letter record for an input record the trainer could not use. */
final class DeadLetters {
    /** The {@code component} field of the trainer's dead letters. */
    static final String COMPONENT = "trainer";

    private DeadLetters() {}

    /** The record, as it came (raw key and value), where it came from, and why it was rejected. */
    static DeadLetter of(ConsumerRecord<byte[], byte[]> source, String reason, Throwable error, long nowMs) {
        return DeadLetter.newBuilder()
                .setSourceTopic(source.topic())
                .setPartition(source.partition())
                .setOffset(source.offset())
                .setKey(source.key() == null ? null : ByteBuffer.wrap(source.key()))
                .setValue(source.value() == null ? null : ByteBuffer.wrap(source.value()))
                .setReason(reason != null ? reason : String.valueOf(error))
                .setErrorClass(error == null ? "" : error.getClass().getName())
                .setComponent(COMPONENT)
                .setTimestampMs(nowMs)
                .build();
    }
}
