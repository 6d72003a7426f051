package io.ata.schemas.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.ata.schemas.JobState;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * Records written by an older producer, whose schema lacked fields that now have defaults, read
 * into today's classes with the defaults filled in.
 */
class SchemaEvolutionTest {

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();

    @Test
    void oldTaskResultWithoutLossAndSamplesGetsTheDefaults() throws IOException {
        Schema old = withoutFields(
                TaskResult.getClassSchema(),
                List.of("loss", "samples", "status", "chunk", "chunks", "payload_id", "assigned_worker_id"));
        GenericRecord written = new GenericData.Record(old);
        written.put("job", "j");
        written.put("round", 3L);
        written.put("task_id", "j/3/0");
        written.put("worker_id", "w1");
        written.put("model_version", 2L);
        written.put("gradient", ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        written.put(
                "encoding", new GenericData.EnumSymbol(old.getField("encoding").schema(), "FLOAT32_LE"));
        written.put("compute_ms", 4.5);
        byte[] bytes = writeOld("ata.gradients", old, written);

        TaskResult read = new AvroDeserializer<>(registry, TaskResult.class).deserialize("ata.gradients", bytes);

        assertEquals("j/3/0", read.getTaskId());
        assertEquals(TensorEncoding.FLOAT32_LE, read.getEncoding());
        assertEquals(4.5, read.getComputeMs());
        assertEquals(0.0, read.getLoss(), "default of a field the writer did not have");
        assertEquals(1, read.getSamples(), "default of a field the writer did not have");
        assertEquals(
                io.ata.schemas.TimingStatus.COMPLETED,
                read.getStatus(),
                "a result from an agent that predates cancellation is a completed task");
        assertEquals("", read.getAssignedWorkerId(), "an older agent names no assignment: its own is meant");
    }

    @Test
    void oldModelVersionWithoutEncodingGetsTheEnumDefault() throws IOException {
        Schema old = withoutFields(
                ModelVersion.getClassSchema(),
                List.of("encoding", "objective", "chunk", "chunks", "task", "delivery_margin_ms", "median_round_ms"));
        byte[] bytes = writeOld("ata.model", old, oldModelVersion(old));

        ModelVersion read = new AvroDeserializer<>(registry, ModelVersion.class).deserialize("ata.model", bytes);

        assertEquals(5L, read.getVersion());
        assertEquals(TensorEncoding.FLOAT64_LE, read.getEncoding());
        assertEquals(0.0, read.getObjective());
        assertEquals(0.0, read.getDeliveryMarginMs(), "a new trainer resuming an old job's version starts from 0");
        assertEquals(0.0, read.getMedianRoundMs(), "no round time: the stall bound's warm-up applies");
    }

    @Test
    void oldAndNewWritersOnOneTopicAreTwoVersionsOfItsSubject() throws IOException {
        Schema old = withoutFields(
                ModelVersion.getClassSchema(),
                List.of("objective", "chunk", "chunks", "task", "delivery_margin_ms", "median_round_ms"));
        GenericRecord written = oldModelVersion(old);
        written.put(
                "encoding", new GenericData.EnumSymbol(old.getField("encoding").schema(), "FLOAT64_LE"));
        writeOld("ata.model", old, written);
        new AvroSerializer<>(registry, ModelVersion.class).serialize("ata.model", io.ata.schemas.SampleRecords.model());
        assertEquals(List.of(1, 2), registry.versions("ata.model-value"));
    }

    @Test
    void oldJobStateWithOnlyTheEstimatorReadsWithNoLearnedState() throws IOException {
        Schema old = withoutFields(JobState.getClassSchema(), List.of("learned_state"));
        assertEquals(
                SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE,
                SchemaCompatibility.checkReaderWriterCompatibility(JobState.getClassSchema(), old)
                        .getType(),
                "BACKWARD: today's broker reads the state stores of the last one");
        Schema estimatorSchema = old.getField("estimator").schema().getTypes().get(1);
        GenericRecord estimator = new GenericRecordBuilder(estimatorSchema)
                .set("eta", 0.3)
                .set("seen", 22L)
                .set("next_refresh", 32L)
                .set("sample_workers", List.of(0, 0))
                .set("samples", List.of(3.0, 4.5))
                .build();
        GenericRecord written = oldJobState(old).set("estimator", estimator).build();
        byte[] bytes = writeOld("ata.broker-jobs-changelog", old, written);

        JobState read =
                new AvroDeserializer<>(registry, JobState.class).deserialize("ata.broker-jobs-changelog", bytes);

        assertNull(read.getLearnedState(), "default of a field the writer did not have");
        assertEquals(0.3, read.getEstimator().getEta(), "the old field is still read, for the broker to migrate");
        assertEquals(List.of(3.0, 4.5), read.getEstimator().getSamples());
        assertEquals(List.of(10L), read.getCount());
    }

    @Test
    void oldJobStateWithoutItsLastEventTimeReadsAsZero() throws IOException {
        Schema old = withoutFields(JobState.getClassSchema(), List.of("last_event_ms"));
        assertEquals(
                SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE,
                SchemaCompatibility.checkReaderWriterCompatibility(JobState.getClassSchema(), old)
                        .getType(),
                "BACKWARD: today's broker reads the state stores of the last one");
        GenericRecord written = oldJobState(old).set("last_opened_round", 7L).build();
        byte[] bytes = writeOld("ata.broker-jobs-changelog", old, written);

        JobState read =
                new AvroDeserializer<>(registry, JobState.class).deserialize("ata.broker-jobs-changelog", bytes);

        assertEquals(0, read.getLastEventMs(), "0: the broker counts its retention from when it reads it");
        assertEquals(7, read.getLastOpenedRound());
    }

    /** Job j's state with one worker, as a broker whose JobState schema was {@code old} wrote it; the rest defaults. */
    private static GenericRecordBuilder oldJobState(Schema old) {
        return new GenericRecordBuilder(old)
                .set("job", "j")
                .set("policy", "ata-auto")
                .set("batch", 4)
                .set("seed", 42L)
                .set("worker_ids", List.of("w1"))
                .set("count", List.of(10L))
                .set("sum", List.of(30.0))
                .set("sum_squares", List.of(95.0))
                .set("sum_cubes", List.of(310.0))
                .set("censored", List.of(0.0));
    }

    /**
     * Writes like an old producer: registers its schema, then writes the header and the Avro body
     * straight to one stream, as {@link AvroSerializer} does.
     */
    private byte[] writeOld(String topic, Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WireFormat.writeHeader(out, registry.register(TopicNameStrategy.subject(topic, false), schema));
        new GenericDatumWriter<GenericRecord>(schema)
                .write(record, EncoderFactory.get().directBinaryEncoder(out, null));
        return out.toByteArray();
    }

    /** Version 5 of job j's model as an older producer, whose schema was {@code old}, wrote it. */
    private static GenericRecord oldModelVersion(Schema old) {
        GenericRecord written = new GenericData.Record(old);
        written.put("job", "j");
        written.put("version", 5L);
        written.put("parameters", ByteBuffer.wrap(new byte[8]));
        written.put("timestamp_ms", 99L);
        return written;
    }

    /** {@code schema} as it was before {@code names} were added. */
    private static Schema withoutFields(Schema schema, List<String> names) {
        List<Schema.Field> kept = schema.getFields().stream()
                .filter(field -> !names.contains(field.name()))
                .map(field -> new Schema.Field(field, field.schema()))
                .collect(Collectors.toList());
        return Schema.createRecord(schema.getName(), schema.getDoc(), schema.getNamespace(), false, kept);
    }
}
