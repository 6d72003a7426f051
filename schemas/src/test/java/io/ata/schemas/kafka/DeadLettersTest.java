package io.ata.schemas.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.schemas.DeadLetter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
    void aComponentIsRequired() {
        assertThrows(NullPointerException.class, () -> new DeadLetters(null));
    }
}
