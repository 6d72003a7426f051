package io.ata.schemas;

import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.serde.AvroSerde;
import io.ata.schemas.serde.TopicNameStrategy;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * One topic: its full name, what its String key holds, the Avro record class of its values, and
 * how it is created (partitions, compaction, how much of it Kafka keeps). The type parameter makes
 * producing the wrong record to a topic a compile error.
 *
 * @param name full topic name, prefix included, e.g. {@code ata.timings}
 * @param keyField the value field the (String) key copies, e.g. {@code worker_id}; records with
 *     the same key go to the same partition, in order
 * @param valueClass the generated record class of the values
 * @param partitions the number of partitions the topic is created with, at least 1 (a running
 *     part asks Kafka for the actual number; this one is what {@code --create-topics} asks for)
 * @param compacted whether the topic is log-compacted (only the latest value per key matters)
 * @param configs further topic configs it is created with, e.g. {@code retention.bytes} (see
 *     {@link TopicConfigs}); never {@code cleanup.policy}, which {@code compacted} gives; copied,
 *     in order
 * @param <V> the generated record class of the values
 */
public record TopicDef<V extends SpecificRecord>(
        String name,
        String keyField,
        Class<V> valueClass,
        int partitions,
        boolean compacted,
        Map<String, String> configs) {

    public TopicDef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(keyField, "keyField");
        Objects.requireNonNull(valueClass, "valueClass");
        if (partitions < 1) {
            throw new IllegalArgumentException("topic " + name + ": partitions must be at least 1, not " + partitions);
        }
        if (configs.containsKey("cleanup.policy")) {
            throw new IllegalArgumentException("topic " + name + ": give compaction with the compacted flag, not as "
                    + "cleanup.policy in configs");
        }
        configs = Collections.unmodifiableMap(new LinkedHashMap<>(configs));
    }

    /** A topic created with the cluster's defaults besides its partitions and compaction. */
    public TopicDef(String name, String keyField, Class<V> valueClass, int partitions, boolean compacted) {
        this(name, keyField, valueClass, partitions, compacted, Map.of());
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
