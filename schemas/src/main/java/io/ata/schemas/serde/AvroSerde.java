package io.ata.schemas.serde;

import io.ata.schemas.registry.SchemaRegistryClient;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * An {@link AvroSerializer} and {@link AvroDeserializer} of the same record class sharing one
 * registry client, as Kafka Streams wants them. Usually obtained from {@code Topics}:
 * {@code topics.timings().valueSerde(registry)}.
 *
 * @param <T> the generated record class
 */
public class AvroSerde<T extends SpecificRecord> implements Serde<T> {

    private AvroSerializer<T> serializer;
    private AvroDeserializer<T> deserializer;

    /**
     * For Kafka (e.g. {@code default.value.serde=io.ata.schemas.serde.AvroSerde}), which then calls
     * {@link #configure}; see {@link SerdeConfig}.
     */
    public AvroSerde() {}

    /** A value serde of {@code recordClass} through {@code registry}. */
    public AvroSerde(SchemaRegistryClient registry, Class<T> recordClass) {
        this(registry, recordClass, false);
    }

    /** A key ({@code isKey}) or value serde of {@code recordClass} through {@code registry}. */
    public AvroSerde(SchemaRegistryClient registry, Class<T> recordClass, boolean isKey) {
        this.serializer = new AvroSerializer<>(registry, recordClass, isKey);
        this.deserializer = new AvroDeserializer<>(registry, recordClass);
    }

    /**
     * Creates the serializer and deserializer from {@link SerdeConfig} settings unless the
     * constructor did, then passes {@code configs} on to both.
     */
    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        if (serializer == null) {
            SchemaRegistryClient registry = SerdeConfig.registryClient(configs);
            Class<T> recordClass = SerdeConfig.recordClass(configs, isKey);
            serializer = new AvroSerializer<>(registry, recordClass, isKey);
            deserializer = new AvroDeserializer<>(registry, recordClass);
        }
        serializer.configure(configs, isKey);
        deserializer.configure(configs, isKey);
    }

    @Override
    public Serializer<T> serializer() {
        requireConfigured();
        return serializer;
    }

    @Override
    public Deserializer<T> deserializer() {
        requireConfigured();
        return deserializer;
    }

    private void requireConfigured() {
        if (serializer == null) {
            throw new IllegalStateException(
                    "AvroSerde is not configured: pass a registry and record class, or call configure()");
        }
    }
}
