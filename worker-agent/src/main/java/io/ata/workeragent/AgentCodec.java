package io.ata.workeragent;

import io.ata.schemas.TopicDef;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Avro values of the agent's topics in Schema Registry wire format. The agent's Kafka clients
 * carry raw bytes and this class does the (de)serialization, for two reasons: one producer writes
 * several record types, and a record that does not decode must reach our code (to be
 * dead-lettered) instead of failing inside {@code poll()}.
 */
final class AgentCodec {

    private final SchemaRegistryClient registry;
    private final Map<String, Serializer<?>> serializers = new ConcurrentHashMap<>();

    AgentCodec(SchemaRegistryClient registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** {@code value} as the bytes of a record of {@code topic}. */
    <V extends SpecificRecord> byte[] encode(TopicDef<V> topic, V value) {
        @SuppressWarnings("unchecked") // created below for this very topic, hence this V
        Serializer<V> serializer = (Serializer<V>) serializers.computeIfAbsent(
                topic.name(), name -> topic.valueSerde(registry).serializer());
        return serializer.serialize(topic.name(), value);
    }

    /** A deserializer for the values of {@code topic}. */
    <V extends SpecificRecord> Deserializer<V> decoder(TopicDef<V> topic) {
        return topic.valueSerde(registry).deserializer();
    }
}
