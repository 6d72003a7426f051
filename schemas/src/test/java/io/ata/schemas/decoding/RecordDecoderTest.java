package io.ata.schemas.decoding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.schemas.serde.SerializationFormatException;
import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

class RecordDecoderTest {
    private final Topics topics = new Topics();
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final String workers = topics.workers().name();
    private final RecordDecoder<WorkerHeartbeat> decoder =
            new RecordDecoder<>(topics.workers().valueSerde(registry).deserializer(), "heartbeat");

    private static WorkerHeartbeat heartbeat() {
        return WorkerHeartbeat.newBuilder()
                .setWorkerId("w1")
                .setHost("box")
                .setCapacity(1)
                .setPartitions(List.of(0))
                .setStatus(WorkerStatus.ALIVE)
                .setTimestampMs(5)
                .build();
    }

    /** A deserializer that fails as given. */
    private static RecordDecoder<WorkerHeartbeat> failing(RuntimeException error) {
        Deserializer<WorkerHeartbeat> broken = (topic, data) -> {
            throw error;
        };
        return new RecordDecoder<>(broken, "heartbeat");
    }

    @Test
    void aRecordIsDecoded() {
        byte[] bytes = topics.workers().valueSerde(registry).serializer().serialize(workers, heartbeat());
        Decoded<WorkerHeartbeat> decoded = decoder.decode(workers, bytes);
        assertEquals(heartbeat(), assertInstanceOf(Decoded.Valid.class, decoded).record());
    }

    @Test
    void bytesThatAreNoRecordAreUndecodableWithTheReason() {
        var json = assertInstanceOf(Decoded.Undecodable.class, decoder.decode(workers, "{\"a\":1}".getBytes()));
        assertTrue(json.reason().startsWith("cannot decode heartbeat: "), json.reason());
        assertTrue(json.reason().contains("magic byte"), json.reason());
        assertInstanceOf(SerializationFormatException.class, json.error());

        var unknownId = assertInstanceOf(
                Decoded.Undecodable.class, decoder.decode(workers, new byte[] {0, 0, 0, 0x7f, 0x10, 1, 2}));
        assertTrue(unknownId.reason().contains("unknown schema id"), unknownId.reason());
    }

    @Test
    void aTombstoneIsUndecodable() {
        var tombstone = assertInstanceOf(Decoded.Undecodable.class, decoder.decode(workers, null));
        assertEquals("empty heartbeat (tombstone)", tombstone.reason());
        assertNull(tombstone.error());
    }

    @Test
    void aSchemaTheRegistryDoesNotHaveIsTheRecordsFault() {
        SchemaNotFoundException notFound = new SchemaNotFoundException("schema 9 not found", 40403);
        var bad = assertInstanceOf(Decoded.Undecodable.class, failing(notFound).decode(workers, new byte[] {0}));
        assertSame(notFound, bad.error());
        assertEquals("cannot decode heartbeat: schema 9 not found", bad.reason());
    }

    @Test
    void aRegistryOutageIsNotTheRecordsFault() {
        SchemaRegistryException down = new SchemaRegistryException("registry unreachable", new IOException("refused"));
        assertSame(
                down,
                assertThrows(SchemaRegistryException.class, () -> failing(down).decode(workers, new byte[] {0})));
        // also when a deserializer wraps it
        SerializationException wrapped = new SerializationException("lookup failed", down);
        assertSame(
                down,
                assertThrows(
                        SchemaRegistryException.class, () -> failing(wrapped).decode(workers, new byte[] {0})));
        SchemaRegistryException http503 = new SchemaRegistryException("HTTP 503", 503, 50301);
        assertSame(
                http503,
                assertThrows(
                        SchemaRegistryException.class, () -> failing(http503).decode(workers, new byte[] {0})));
    }

    @Test
    void otherErrorsAreNotSwallowed() {
        IllegalStateException bug = new IllegalStateException("not configured");
        assertSame(
                bug,
                assertThrows(IllegalStateException.class, () -> failing(bug).decode(workers, new byte[] {0})));
    }
}
