package io.ata.schemas.decoding;

import io.ata.schemas.DeadLetter;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Builds the {@link DeadLetter} of an input record a part could not use: where it came from, its
 * raw key and value (so an operator can decode or replay it), why it was refused, and which part
 * refused it. One instance per part, named by its {@link #component()}.
 *
 * <p>A dead letter must fit in one Kafka request whatever it carries: a record of nearly the
 * broker's maximum size, refused, would otherwise give a dead letter too large to write, and the
 * part would fail on it. So the raw key and value are each cut to their first
 * {@link #maxPayloadBytes()} bytes (default {@value #DEFAULT_MAX_PAYLOAD_BYTES}), the reason to
 * {@value #MAX_REASON_CHARS} characters; a cut letter says so ({@code truncated}, the whole sizes in
 * {@code key_size} and {@code value_size}, and the reason).
 *
 * <p>Every part writes its dead letters with the <em>source topic</em> as key ({@link #keyOf}),
 * as {@code Topics.deadLetters()} declares (key field {@code source_topic}): the source key may be
 * missing, huge or garbage (it may be why the record was refused), and keying by topic keeps each
 * topic's dead letters in order in one partition. The source key is in the letter's {@code key}.
 */
public final class DeadLetters {
    /** The {@code component} of the broker's dead letters. */
    public static final String BROKER = "broker";
    /** The {@code component} of the trainer's dead letters. */
    public static final String TRAINER = "trainer";
    /** The {@code component} of the worker agents' dead letters. */
    public static final String WORKER_AGENT = "worker-agent";

    /** How many bytes of a refused record's key, and of its value, a dead letter carries unless told. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 64 * 1024;
    /** How many characters of the reason a dead letter carries: reasons quote record content. */
    public static final int MAX_REASON_CHARS = 4096;

    private final String component;
    private final int maxPayloadBytes;

    /** A builder of the dead letters of {@code component}, e.g. {@link #TRAINER}, with the default cut. */
    public DeadLetters(String component) {
        this(component, DEFAULT_MAX_PAYLOAD_BYTES);
    }

    /**
     * @param maxPayloadBytes the most bytes of a record's key, and of its value, a letter carries;
     *     keep twice this plus a few KiB below the producer's {@code max.request.size}
     */
    public DeadLetters(String component, int maxPayloadBytes) {
        this.component = Objects.requireNonNull(component, "component");
        if (maxPayloadBytes < 0) {
            throw new IllegalArgumentException("maxPayloadBytes must be >= 0, not " + maxPayloadBytes);
        }
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /** The most bytes of a refused record's key, and of its value, a letter carries. */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
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
     * @param key its raw key, may be null; cut to {@link #maxPayloadBytes()}
     * @param value its raw value, may be null; cut to {@link #maxPayloadBytes()}
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
        boolean truncated = longer(key) || longer(value);
        String why = cut(reason != null ? reason : String.valueOf(error));
        if (truncated) {
            why = cut("[payload truncated to its first " + maxPayloadBytes + " bytes: key " + sizeOf(key)
                    + " bytes, value " + sizeOf(value) + " bytes] " + why);
        }
        return DeadLetter.newBuilder()
                .setSourceTopic(sourceTopic)
                .setPartition(partition)
                .setOffset(offset)
                .setKey(head(key))
                .setValue(head(value))
                .setReason(why)
                .setErrorClass(error == null ? "" : error.getClass().getName())
                .setComponent(component)
                .setTimestampMs(nowMs)
                .setTruncated(truncated)
                .setKeySize(sizeOf(key))
                .setValueSize(sizeOf(value))
                .build();
    }

    private boolean longer(byte[] bytes) {
        return bytes != null && bytes.length > maxPayloadBytes;
    }

    private ByteBuffer head(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        return ByteBuffer.wrap(bytes, 0, Math.min(bytes.length, maxPayloadBytes))
                .slice();
    }

    private static int sizeOf(byte[] bytes) {
        return bytes == null ? -1 : bytes.length;
    }

    private static String cut(String reason) {
        return reason.length() <= MAX_REASON_CHARS ? reason : reason.substring(0, MAX_REASON_CHARS - 3) + "...";
    }

    /** The key to write {@code letter} with: its source topic. */
    public static String keyOf(DeadLetter letter) {
        return letter.getSourceTopic();
    }
}
