package io.ata.schemas.serde;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.schemas.JobState;
import io.ata.schemas.SampleRecords;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/** Every record type through its topic's serde, with an in-process registry. */
class AvroSerdeRoundTripTest {

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final Topics topics = new Topics();

    @Test
    void workers() {
        roundTrip(topics.workers(), SampleRecords.heartbeat());
    }

    @Test
    void rounds() {
        roundTrip(topics.rounds(), SampleRecords.roundClosed());
    }

    @Test
    void tasks() {
        roundTrip(topics.tasks(), SampleRecords.assignment());
    }

    @Test
    void timings() {
        roundTrip(topics.timings(), SampleRecords.timing());
    }

    @Test
    void gradients() {
        roundTrip(topics.gradients(), SampleRecords.result());
    }

    @Test
    void model() {
        roundTrip(topics.model(), SampleRecords.model());
    }

    @Test
    void deadLetters() {
        roundTrip(topics.deadLetters(), SampleRecords.deadLetter());
    }

    @Test
    void chunkedModelWithItsTaskDescription() {
        roundTrip(topics.model(), SampleRecords.chunkedModel());
    }

    @Test
    void optimizerState() {
        roundTrip(topics.optimizer(), SampleRecords.optimizerState());
    }

    @Test
    void evaluation() {
        roundTrip(topics.evaluations(), SampleRecords.evaluation());
    }

    @Test
    void jobStateIsNotATopicButHasASerde() {
        JobState state = SampleRecords.jobState();
        AvroSerde<JobState> serde = new AvroSerde<>(registry, JobState.class);
        byte[] bytes = serde.serializer().serialize("ata.broker-job-state-changelog", state);
        assertHeader(
                bytes, registry.latest("ata.broker-job-state-changelog-value").id());
        assertEquals(state, serde.deserializer().deserialize("ata.broker-job-state-changelog", bytes));
    }

    @Test
    void eachSchemaGetsItsOwnIdAndEachTopicOneVersion() {
        SpecificRecord[] samples = {
            SampleRecords.heartbeat(),
            SampleRecords.roundClosed(),
            SampleRecords.assignment(),
            SampleRecords.assignment(),
            SampleRecords.timing(),
            SampleRecords.result(),
            SampleRecords.model(),
            SampleRecords.deadLetter(),
            SampleRecords.heartbeat(),
            SampleRecords.optimizerState(),
            SampleRecords.evaluation()
        };
        int i = 0;
        for (TopicDef<?> topic : topics.all()) {
            serializeAny(topic, samples[i++]);
            serializeAny(topic, samples[i - 1]);
        }
        // membership holds the workers' schema and allocations the tasks': the same schema, the same id
        int id = 0;
        for (TopicDef<?> topic : topics.all()) {
            if (topic != topics.membership() && topic != topics.allocations()) {
                assertEquals(++id, registry.latest(topic.valueSubject()).id(), topic.name());
            }
            assertEquals(1, registry.latest(topic.valueSubject()).version());
        }
        assertEquals(
                registry.latest(topics.workers().valueSubject()).id(),
                registry.latest(topics.membership().valueSubject()).id());
        assertEquals(1, registry.latest(topics.membership().valueSubject()).version());
        assertEquals(
                registry.latest(topics.tasks().valueSubject()).id(),
                registry.latest(topics.allocations().valueSubject()).id());
    }

    @Test
    void recordsOfChangingSizesGetExactlyTheirOwnBytes() {
        // the serializer sizes its buffer from the records before: larger, smaller, equal and
        // growing records must each come out as a fresh serializer writes them, nothing more
        AvroSerializer<TaskResult> serializer = new AvroSerializer<>(registry, TaskResult.class);
        for (int size : new int[] {10_000, 10_000, 10, 0, 10_000, 9_999, 10_001, 50_000, 3}) {
            byte[] gradient = new byte[size];
            new Random(size).nextBytes(gradient);
            TaskResult result = SampleRecords.result();
            result.setGradient(ByteBuffer.wrap(gradient));
            byte[] fresh = new AvroSerializer<>(registry, TaskResult.class).serialize("ata.gradients", result);
            assertArrayEquals(fresh, serializer.serialize("ata.gradients", result), "gradient of " + size + " bytes");
        }
    }

    @Test
    void nullIsATombstoneBothWays() {
        Serde<TaskTiming> serde = topics.timings().valueSerde(registry);
        assertNull(serde.serializer().serialize("ata.timings", null));
        assertNull(serde.deserializer().deserialize("ata.timings", null));
    }

    @Test
    void aKeySerializerUsesTheKeySubject() {
        AvroSerializer<TaskTiming> keys = new AvroSerializer<>(registry, TaskTiming.class, true);
        byte[] bytes = keys.serialize("ata.odd", SampleRecords.timing());
        assertHeader(bytes, registry.latest("ata.odd-key").id());
    }

    @Test
    void aRecordMissingARequiredFieldIsASerializationError() {
        TaskTiming incomplete = new TaskTiming(); // job etc. are null
        SerializationException error = assertThrows(
                SerializationException.class,
                () -> topics.timings().valueSerde(registry).serializer().serialize("ata.timings", incomplete));
        org.junit.jupiter.api.Assertions.assertTrue(
                error.getMessage().startsWith("cannot write TaskTiming to topic ata.timings"), error.getMessage());
    }

    private <V extends SpecificRecord> void roundTrip(TopicDef<V> topic, V record) {
        Serde<V> serde = topic.valueSerde(registry);
        byte[] bytes = serde.serializer().serialize(topic.name(), record);
        assertHeader(bytes, registry.latest(topic.valueSubject()).id());
        V back = serde.deserializer().deserialize(topic.name(), bytes);
        assertEquals(record, back);
        assertEquals(record.getClass(), back.getClass());
        // a second serde (another process, say) reads the same bytes through the registry
        assertEquals(record, topic.valueSerde(registry).deserializer().deserialize(topic.name(), bytes));
        // the record was not consumed by writing it (ByteBuffer fields keep their position)
        assertArrayEquals(bytes, serde.serializer().serialize(topic.name(), record));
    }

    @SuppressWarnings("unchecked")
    private <V extends SpecificRecord> void serializeAny(TopicDef<V> topic, SpecificRecord record) {
        topic.valueSerde(registry).serializer().serialize(topic.name(), (V) record);
    }

    static void assertHeader(byte[] bytes, int schemaId) {
        assertEquals(0, bytes[0], "magic byte");
        assertEquals(schemaId, ByteBuffer.wrap(bytes, 1, 4).getInt(), "schema id");
    }
}
