package io.ata.schemas.serde;

import io.ata.schemas.AvroTrust;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Writes generated Avro records in the Schema Registry {@link WireFormat}.
 *
 * <p>The writer schema is the record class's own. The first record for a topic registers that
 * schema under the topic's subject ({@link TopicNameStrategy}) and remembers the id; later records
 * cost no registry call. A {@code null} record becomes {@code null} bytes (a tombstone).
 *
 * <p>Create it with a registry client, or let Kafka create it from properties (see
 * {@link SerdeConfig}). Thread-safe, as a producer requires.
 *
 * @param <T> the generated record class
 */
public class AvroSerializer<T extends SpecificRecord> implements Serializer<T> {

    private SchemaRegistryClient registry;
    private Class<T> recordClass;
    private boolean isKey;
    private boolean autoRegister = true;

    private Schema writerSchema;
    private SpecificDatumWriter<T> writer;
    private final Map<String, Integer> idsBySubject = new ConcurrentHashMap<>();
    /**
     * The sizes of the previous two records: the next one's buffer starts at the larger, which fits a
     * gradient's full slices and the one after its shorter last slice. A hint, so not synchronised.
     */
    private volatile int previousSize = 128;

    private volatile int sizeBefore = 128;

    /** For Kafka, which then calls {@link #configure}. */
    public AvroSerializer() {
        AvroTrust.ensure();
    }

    /** A value serializer writing {@code recordClass} records through {@code registry}. */
    public AvroSerializer(SchemaRegistryClient registry, Class<T> recordClass) {
        this(registry, recordClass, false);
    }

    /** A key ({@code isKey}) or value serializer writing {@code recordClass} records. */
    public AvroSerializer(SchemaRegistryClient registry, Class<T> recordClass, boolean isKey) {
        AvroTrust.ensure();
        this.registry = Objects.requireNonNull(registry, "registry");
        this.isKey = isKey;
        useRecordClass(Objects.requireNonNull(recordClass, "recordClass"));
    }

    /**
     * Reads {@link SerdeConfig} settings that the constructor did not give: the registry
     * ({@code schema.registry.url}) and record class ({@code ata.avro.record.class}). Kafka's
     * {@code isKey} always applies, as does {@code auto.register.schemas}.
     */
    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        this.isKey = isKey;
        this.autoRegister = SerdeConfig.autoRegister(configs);
        registry = SerdeConfig.registryClient(registry, configs);
        if (recordClass == null) {
            useRecordClass(SerdeConfig.recordClass(configs, isKey));
        }
    }

    private void useRecordClass(Class<T> type) {
        this.recordClass = type;
        this.writerSchema = SpecificData.getForClass(type).getSchema(type);
        this.writer = new SpecificDatumWriter<>(writerSchema, SpecificData.getForClass(type));
    }

    @Override
    public byte[] serialize(String topic, T record) {
        if (record == null) {
            return null;
        }
        if (writer == null) {
            throw new IllegalStateException(
                    "AvroSerializer is not configured: pass a registry and record class, or call configure()");
        }
        if (!recordClass.isInstance(record)) {
            throw new SerializationException("topic " + topic + " expects " + recordClass.getName() + " records, got "
                    + record.getClass().getName());
        }
        int schemaId = schemaId(TopicNameStrategy.subject(topic, isKey));
        SizedBuffer out = new SizedBuffer(Math.max(previousSize, sizeBefore));
        WireFormat.writeHeader(out, schemaId);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        try {
            writer.write(record, encoder);
            encoder.flush();
        } catch (IOException | RuntimeException e) {
            throw new SerializationException(
                    "cannot write " + recordClass.getSimpleName() + " to topic " + topic + ": " + e.getMessage(), e);
        }
        sizeBefore = previousSize;
        previousSize = out.size();
        return out.bytes();
    }

    /** The id of the writer schema under {@code subject}, from the registry on first use. */
    private int schemaId(String subject) {
        return idsBySubject.computeIfAbsent(subject, s -> {
            if (autoRegister) {
                return registry.register(s, writerSchema);
            }
            return registry.lookup(s, writerSchema)
                    .orElseThrow(() -> new SerializationException("the schema of " + recordClass.getName()
                            + " is not registered under subject " + s + " and " + SerdeConfig.AUTO_REGISTER_SCHEMAS
                            + "=false; register it first"))
                    .id();
        });
    }
}
