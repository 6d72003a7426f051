package io.ata.broker;

import io.ata.schemas.DeadLetter;
import java.nio.ByteBuffer;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** Builds the dead-letter record for an input record that could not be processed. */
final class DeadLetters {
    private DeadLetters() {}

    static DeadLetter of(
            ProcessingContext context, Record<byte[], byte[]> input, String reason, Throwable error, long nowMs) {
        RecordMetadata where = context.recordMetadata().orElse(null);
        return DeadLetter.newBuilder()
                .setSourceTopic(where == null ? "" : where.topic())
                .setPartition(where == null ? -1 : where.partition())
                .setOffset(where == null ? -1 : where.offset())
                .setKey(input.key() == null ? null : ByteBuffer.wrap(input.key()))
                .setValue(input.value() == null ? null : ByteBuffer.wrap(input.value()))
                .setReason(reason == null ? String.valueOf(error) : reason)
                .setErrorClass(error == null ? "" : error.getClass().getName())
                .setComponent("broker")
                .setTimestampMs(nowMs)
                .build();
    }
}
