package io.ata.schemas.serde;

import io.ata.schemas.AvroTrust;
import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.serde.SerializationFormatException.Reason;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads records in the Schema Registry {@link WireFormat} into a generated Avro class.
 *
 * <p>Each record names its writer schema by id. The deserializer fetches that schema once
 * (cached) and resolves it to the reader schema, the generated class's own. That is schema
 * evolution: a record written by an older producer (missing a field that now has a default) reads
 * into the current class with the default filled in.
 *
 * <p>{@code null} bytes (a tombstone) give {@code null}. Anything else that is not a valid record
 * throws {@link SerializationFormatException} saying why, never returns {@code null}; a registry
 * outage throws {@link io.ata.schemas.registry.SchemaRegistryException} instead.
 *
 * <p>Create it with a registry client, or let Kafka create it from properties (see
 * {@link SerdeConfig}). Thread-safe.
 *
 * @param <T> the generated record class
 */
public class AvroDeserializer<T extends SpecificRecord> implements Deserializer<T> {

    private SchemaRegistryClient registry;
    private Class<T> recordClass;
    private Schema readerSchema;
    private SpecificData model;

    /** One reader per writer schema id, each resolving that writer to our reader schema. */
    private final Map<Integer, SpecificDatumReader<T>> readersById = new ConcurrentHashMap<>();

    /** For Kafka, which then calls {@link #configure}. */
    public AvroDeserializer() {
        AvroTrust.ensure();
    }

    /** A deserializer reading {@code recordClass} records, with writer schemas from {@code registry}. */
    public AvroDeserializer(SchemaRegistryClient registry, Class<T> recordClass) {
        AvroTrust.ensure();
        this.registry = Objects.requireNonNull(registry, "registry");
        useRecordClass(Objects.requireNonNull(recordClass, "recordClass"));
    }

    /**
     * Reads {@link SerdeConfig} settings that the constructor did not give: the registry
     * ({@code schema.registry.url}) and record class ({@code ata.avro.record.class}, or
     * {@code ata.avro.key.record.class} if {@code isKey}).
     */
    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        registry = SerdeConfig.registryClient(registry, configs);
        if (recordClass == null) {
            useRecordClass(SerdeConfig.recordClass(configs, isKey));
        }
    }

    private void useRecordClass(Class<T> type) {
        this.recordClass = type;
        this.model = SpecificData.getForClass(type);
        this.readerSchema = model.getSchema(type);
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        if (readerSchema == null) {
            throw new IllegalStateException(
                    "AvroDeserializer is not configured: pass a registry and record class, or call configure()");
        }
        int schemaId = WireFormat.schemaId(data);
        SpecificDatumReader<T> reader = readerFor(schemaId);
        int bodyLength = data.length - WireFormat.HEADER_LENGTH;
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, WireFormat.HEADER_LENGTH, bodyLength, null);
        T record;
        boolean bytesLeftOver;
        try {
            record = reader.read(null, decoder);
            bytesLeftOver = !decoder.isEnd();
        } catch (IOException | RuntimeException e) {
            throw new SerializationFormatException(
                    Reason.MALFORMED_BODY,
                    "malformed Avro body for " + describe(schemaId) + " (" + bodyLength + " bytes): " + e,
                    e);
        }
        if (bytesLeftOver) {
            throw new SerializationFormatException(
                    Reason.MALFORMED_BODY,
                    "malformed Avro body: bytes left over after a complete " + describe(schemaId)
                            + " (wrong schema id, or two records in one?)");
        }
        return record;
    }

    /** The reader for records written with schema {@code schemaId}, created on first use. */
    private SpecificDatumReader<T> readerFor(int schemaId) {
        SpecificDatumReader<T> reader = readersById.get(schemaId);
        if (reader != null) {
            return reader;
        }
        Schema writerSchema;
        try {
            writerSchema = registry.getById(schemaId);
        } catch (SchemaNotFoundException e) {
            throw new SerializationFormatException(
                    Reason.UNKNOWN_SCHEMA_ID,
                    "unknown schema id " + schemaId + " (the Schema Registry does not have it)",
                    e);
        }
        SchemaPairCompatibility compatibility =
                SchemaCompatibility.checkReaderWriterCompatibility(readerSchema, writerSchema);
        if (compatibility.getType() != SchemaCompatibilityType.COMPATIBLE) {
            String problems = compatibility.getResult().getIncompatibilities().stream()
                    .map(problem -> problem.getType() + " at " + problem.getLocation() + ": " + problem.getMessage())
                    .collect(Collectors.joining("; "));
            throw new SerializationFormatException(
                    Reason.INCOMPATIBLE_SCHEMA,
                    "writer schema id " + schemaId + " (" + writerSchema.getFullName()
                            + ") cannot be resolved to reader " + recordClass.getName() + ": " + problems);
        }
        reader = new SpecificDatumReader<>(writerSchema, readerSchema, model);
        SpecificDatumReader<T> raced = readersById.putIfAbsent(schemaId, reader);
        return raced != null ? raced : reader;
    }

    private String describe(int schemaId) {
        return recordClass.getSimpleName() + " written with schema id " + schemaId;
    }
}
