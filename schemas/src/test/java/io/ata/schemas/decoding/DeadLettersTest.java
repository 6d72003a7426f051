package io.ata.schemas.decoding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class DeadLettersTest {
    private final DeadLetters trainer = new DeadLetters(DeadLetters.TRAINER);

    @Test
    void aConsumedRecordKeepsItsPositionBytesReasonAndError() {
        byte[] key = "job-1".getBytes(StandardCharsets.UTF_8);
        byte[] value = {0, 1, 2};
        SerializationException error = new SerializationException("bad magic byte");
        DeadLetter letter =
                trainer.of(new ConsumerRecord<>("ata.gradients", 3, 42L, key, value), "cannot decode", error, 1234L);

        assertEquals("ata.gradients", letter.getSourceTopic());
        assertEquals(3, letter.getPartition());
        assertEquals(42L, letter.getOffset());
        assertEquals(ByteBuffer.wrap(key), letter.getKey());
        assertEquals(ByteBuffer.wrap(value), letter.getValue());
        assertEquals("cannot decode", letter.getReason());
        assertEquals(SerializationException.class.getName(), letter.getErrorClass());
        assertEquals("trainer", letter.getComponent());
        assertEquals(1234L, letter.getTimestampMs());
        assertEquals("ata.gradients", DeadLetters.keyOf(letter), "keyed by the source topic");
    }

    @Test
    void aRecordGivenByPositionWithoutKeyValueOrError() {
        DeadLetter letter = new DeadLetters(DeadLetters.BROKER).of("", -1, -1, null, null, "tombstone", null, 7L);
        assertEquals("", letter.getSourceTopic());
        assertEquals(-1, letter.getPartition());
        assertEquals(-1L, letter.getOffset());
        assertNull(letter.getKey());
        assertNull(letter.getValue());
        assertEquals("tombstone", letter.getReason());
        assertEquals("", letter.getErrorClass(), "no error, no class");
        assertEquals("broker", letter.getComponent());
    }

    @Test
    void withoutAReasonTheErrorSaysWhy() {
        IllegalArgumentException error = new IllegalArgumentException("round 0");
        DeadLetter letter = new DeadLetters(DeadLetters.WORKER_AGENT).of("ata.tasks", 0, 1, null, null, null, error, 0);
        assertEquals(error.toString(), letter.getReason());
        assertEquals("worker-agent", letter.getComponent());
    }

    @Test
    void aLetterThatFitsIsNotTruncated() {
        DeadLetter letter = trainer.of("ata.gradients", 0, 0, new byte[] {1}, new byte[] {2, 3}, "bad", null, 0);
        assertFalse(letter.getTruncated());
        assertEquals(1, letter.getKeySize());
        assertEquals(2, letter.getValueSize());
        assertEquals("bad", letter.getReason());
    }

    @Test
    void anEmptyRecordHasNoSizes() {
        DeadLetter letter = trainer.of("ata.gradients", 0, 0, null, null, "tombstone", null, 0);
        assertEquals(-1, letter.getKeySize());
        assertEquals(-1, letter.getValueSize());
    }

    @Test
    void aHugeRecordKeepsItsFirstBytesAndSaysSo() {
        byte[] value = new byte[1_048_405]; // accepted by a broker at its default limit
        new Random(1).nextBytes(value);
        byte[] key = new byte[200_000];
        new Random(2).nextBytes(key);
        DeadLetters small = new DeadLetters(DeadLetters.BROKER, 1000);

        DeadLetter letter = small.of("ata.workers", 0, 5, key, value, "cannot decode heartbeat", null, 0);

        assertTrue(letter.getTruncated());
        assertEquals(key.length, letter.getKeySize());
        assertEquals(value.length, letter.getValueSize());
        assertEquals(ByteBuffer.wrap(Arrays.copyOf(key, 1000)), letter.getKey());
        assertEquals(ByteBuffer.wrap(Arrays.copyOf(value, 1000)), letter.getValue());
        assertTrue(letter.getReason().contains("truncated"), letter.getReason());
        assertTrue(letter.getReason().endsWith("cannot decode heartbeat"), letter.getReason());
    }

    @Test
    void aHugeRecordsLetterFitsInOneRequestAsAvroBytes() {
        byte[] value = new byte[1_048_405];
        new Random(3).nextBytes(value);
        String hugeReason = "x".repeat(2_000_000); // a reason quoting record content
        DeadLetter letter =
                new DeadLetters(DeadLetters.BROKER).of("ata.workers", 0, 5, value, value, hugeReason, null, 0);

        byte[] bytes;
        DeadLetter read;
        try (EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry()) {
            var serde = new Topics().deadLetters().valueSerde(registry);
            bytes = serde.serializer().serialize("ata.dead-letters", letter);
            read = serde.deserializer().deserialize("ata.dead-letters", bytes);
        }
        // the producer's default max.request.size is 1 MiB, record overhead included
        assertTrue(bytes.length < 1024 * 1024 - 1024, "dead letter of " + bytes.length + " bytes");
        assertTrue(bytes.length > 2 * DeadLetters.DEFAULT_MAX_PAYLOAD_BYTES, "carries both heads");
        assertTrue(read.getTruncated());
        assertEquals(value.length, read.getValueSize());
        assertEquals(DeadLetters.DEFAULT_MAX_PAYLOAD_BYTES, read.getValue().remaining());
        assertEquals(DeadLetters.MAX_REASON_CHARS, read.getReason().length());
    }

    @Test
    void aComponentIsRequired() {
        assertThrows(NullPointerException.class, () -> new DeadLetters(null));
    }
}
