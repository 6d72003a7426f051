package io.ata.schemas;

import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.serde.AvroSerde;
import io.ata.schemas.serde.TopicNameStrategy;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * One topic: its full name, what its String key holds, and the Avro record class of its values.
 * The type parameter makes producing the wrong record to a topic a compile error.
 *
 * @param name full topic name, prefix included, e.g. {@code ata.timings}
 * @param keyField the value field the (String) key copies, e.g. {@code worker_id}; records with
 *     the same key go to the same partition, in order
 * @param valueClass the generated record class of the values
 * @param compacted whether the topic is log-compacted (only the latest value per key matters)
 * @param <V> the generated record class of the values
 */
public record TopicDef<V extends SpecificRecord>(String name, String keyField, Class<V> valueClass, boolean compacted) {

    public TopicDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(keyField, "keyField");
        Objects.requireNonNull(valueClass, "valueClass");
    }

    /** The key serde: every topic's key is a String. */
    public Serde<String> keySerde() {
        return Serdes.String();
    }

    /** A value serde for this topic's records, with schemas in {@code registry}. */
    public AvroSerde<V> valueSerde(SchemaRegistryClient registry) {
        return new AvroSerde<>(registry, valueClass, false);
    }

    /** The registry subject of the value schema, {@code <name>-value}. */
    public String valueSubject() {
        return TopicNameStrategy.subject(name, false);
    }
}
