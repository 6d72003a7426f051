package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TaskResult;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.schemas.serde.AvroSerde;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class GradientDecoderTest {
    private final Topics topics = new Topics("t.");
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final AvroSerde<TaskResult> serde = topics.gradients().valueSerde(registry);
    private final GradientDecoder decoder =
            new GradientDecoder("job", topics.gradients().name(), serde.deserializer());

    private byte[] bytes(TaskResult r) {
        return serde.serializer().serialize(topics.gradients().name(), r);
    }

    private static byte[] key(String job) {
        return job.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void decodesAResultOfItsJob() {
        TaskResult r = Results.of("job", 1, 0, "w1", new double[] {1, 2}, 3);
        GradientDecoder.Outcome d = decoder.decode(key("job"), bytes(r));
        assertEquals(r, assertInstanceOf(GradientDecoder.Result.class, d).result());
    }

    @Test
    void leavesRecordsKeyedByAnotherJobAloneWithoutDecodingThem() {
        GradientDecoder.Outcome d = decoder.decode(key("other"), new byte[] {1, 2, 3});
        assertEquals(
                "other", assertInstanceOf(GradientDecoder.OtherJob.class, d).job());
    }

    @Test
    void judgesRecordsWithoutKeyByTheirJobField() {
        TaskResult other = Results.of("other", 1, 0, "w1", new double[] {1}, 3);
        assertInstanceOf(GradientDecoder.OtherJob.class, decoder.decode(null, bytes(other)));
        TaskResult ours = Results.of("job", 1, 0, "w1", new double[] {1}, 3);
        assertInstanceOf(GradientDecoder.Result.class, decoder.decode(null, bytes(ours)));
        assertInstanceOf(GradientDecoder.Undecodable.class, decoder.decode(null, new byte[] {9}));
    }

    @Test
    void undecodableRecordsGetAReason() {
        var garbage = assertInstanceOf(
                GradientDecoder.Undecodable.class,
                decoder.decode(key("job"), "{\"json\":1}".getBytes(StandardCharsets.UTF_8)));
        assertTrue(garbage.reason().contains("magic byte"), garbage.reason());
        assertTrue(garbage.error() != null);

        var unknownId = assertInstanceOf(
                GradientDecoder.Undecodable.class, decoder.decode(key("job"), new byte[] {0, 0, 0, 0, 99, 1, 2}));
        assertTrue(unknownId.reason().contains("unknown schema id"), unknownId.reason());

        var tombstone = assertInstanceOf(GradientDecoder.Undecodable.class, decoder.decode(key("job"), null));
        assertTrue(tombstone.reason().contains("tombstone"));
    }

    @Test
    void aKeyThatContradictsTheValueIsDeadLettered() {
        TaskResult other = Results.of("other", 1, 0, "w1", new double[] {1}, 3);
        var bad = assertInstanceOf(GradientDecoder.Undecodable.class, decoder.decode(key("job"), bytes(other)));
        assertTrue(bad.reason().contains("'other'"), bad.reason());
    }

    @Test
    void aRegistryOutageIsNotTheRecordsFault() {
        SchemaRegistryException down = new SchemaRegistryException("registry unreachable", null);
        GradientDecoder offline = new GradientDecoder("job", topics.gradients().name(), (topic, data) -> {
            throw down;
        });
        assertSame(down, assertThrows(SchemaRegistryException.class, () -> offline.decode(key("job"), new byte[] {0})));
    }
}
