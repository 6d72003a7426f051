package io.ata.schemas.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.SampleRecords;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.serde.SerializationFormatException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

/** Bad bytes give a typed error with a message fit for a dead-letter record, never null. */
class MalformedInputTest {

    private static final String TOPIC = "ata.timings";

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final Topics topics = new Topics();
    private final Deserializer<TaskTiming> timings =
            topics.timings().valueSerde(registry).deserializer();

    private byte[] validTiming() {
        return topics.timings().valueSerde(registry).serializer().serialize(TOPIC, SampleRecords.timing());
    }

    private SerializationFormatException rejected(byte[] bytes, Reason reason) {
        SerializationFormatException error =
                assertThrows(SerializationFormatException.class, () -> timings.deserialize(TOPIC, bytes));
        assertEquals(reason, error.reason(), error.getMessage());
        assertInstanceOf(SerializationException.class, error, "Kafka's type, for generic handlers");
        return error;
    }

    @Test
    void empty() {
        SerializationFormatException error = rejected(new byte[0], Reason.TOO_SHORT);
        assertEquals(
                "record too short: empty (0 bytes), expected magic byte 0 + 4-byte schema id " + "+ Avro body",
                error.getMessage());
    }

    @Test
    void wrongMagicByte() {
        byte[] json = "{\"job\": \"j\"}".getBytes(StandardCharsets.UTF_8);
        SerializationFormatException error = rejected(json, Reason.UNKNOWN_MAGIC_BYTE);
        assertEquals("unknown magic byte 0x7b (not Schema Registry wire format)", error.getMessage());
        assertEquals(
                "unknown magic byte 0xff (not Schema Registry wire format)",
                rejected(new byte[] {(byte) 0xff, 0, 0, 0, 1}, Reason.UNKNOWN_MAGIC_BYTE)
                        .getMessage());
    }

    @Test
    void headerCutShort() {
        SerializationFormatException error = rejected(new byte[] {0, 0, 1}, Reason.TOO_SHORT);
        assertEquals(
                "record too short: 3 bytes, expected at least 5 (magic byte 0 + 4-byte schema id)", error.getMessage());
    }

    @Test
    void unknownSchemaId() {
        validTiming(); // the registry knows id 1 only
        SerializationFormatException error =
                rejected(WireFormat.frame(42, new byte[] {2, 'j'}), Reason.UNKNOWN_SCHEMA_ID);
        assertEquals("unknown schema id 42 (the Schema Registry does not have it)", error.getMessage());
    }

    @Test
    void truncatedBody() {
        byte[] valid = validTiming();
        for (int cut : new int[] {valid.length - 1, valid.length / 2, WireFormat.HEADER_LENGTH}) {
            SerializationFormatException error = rejected(Arrays.copyOf(valid, cut), Reason.MALFORMED_BODY);
            assertTrue(
                    error.getMessage()
                            .startsWith("malformed Avro body for TaskTiming written with schema id 1 ("
                                    + (cut - WireFormat.HEADER_LENGTH) + " bytes): "),
                    error.getMessage());
        }
    }

    @Test
    void corruptBody() {
        byte[] valid = validTiming();
        byte[] corrupt = valid.clone();
        corrupt[WireFormat.HEADER_LENGTH] = (byte) 0x81; // a string length that never ends
        Arrays.fill(corrupt, WireFormat.HEADER_LENGTH + 1, corrupt.length, (byte) 0xff);
        rejected(corrupt, Reason.MALFORMED_BODY);
    }

    @Test
    void bytesLeftOver() {
        byte[] valid = validTiming();
        byte[] longer = Arrays.copyOf(valid, valid.length + 3);
        SerializationFormatException error = rejected(longer, Reason.MALFORMED_BODY);
        assertTrue(error.getMessage().contains("bytes left over"), error.getMessage());
    }

    @Test
    void aRecordOfAnotherTypeIsIncompatible() {
        byte[] deadLetter = new AvroSerializer<>(registry, DeadLetter.class)
                .serialize("ata.dead-letters", SampleRecords.deadLetter());
        SerializationFormatException error = rejected(deadLetter, Reason.INCOMPATIBLE_SCHEMA);
        assertTrue(
                error.getMessage()
                        .startsWith("writer schema id 1 (io.ata.schemas.DeadLetter) "
                                + "cannot be resolved to reader io.ata.schemas.TaskTiming: NAME_MISMATCH"),
                error.getMessage());
    }
}
