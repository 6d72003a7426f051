package io.ata.schemas.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.SampleRecords;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.Test;

/** Serdes created by class name and configured from properties, as Kafka clients do. */
class SerdeConfigTest {

    @Test
    void embeddedUrlFindsTheBoundRegistry() {
        try (EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry().bind("config-test")) {
            Map<String, Object> props = Map.of(
                    "schema.registry.url", "embedded://config-test",
                    "ata.avro.record.class", "io.ata.schemas.TaskTiming");
            byte[] bytes = configuredSerializer(new AvroSerializer<TaskTiming>(), props)
                    .serialize("ata.timings", SampleRecords.timing());
            assertEquals(1, registry.latest("ata.timings-value").id(), "registered in the bound one");
            assertEquals(
                    SampleRecords.timing(),
                    configuredDeserializer(new AvroDeserializer<TaskTiming>(), props)
                            .deserialize("ata.timings", bytes));
        }
    }

    @Test
    void unboundEmbeddedNameIsAConfigError() {
        ConfigException error = assertThrows(
                ConfigException.class,
                () -> SerdeConfig.registryClient(Map.of("schema.registry.url", "embedded://nobody")));
        assertTrue(
                error.getMessage().contains("no EmbeddedSchemaRegistry is bound to the name 'nobody'"),
                error.getMessage());
    }

    @Test
    void missingOrWrongSettingsAreConfigErrors() {
        assertThrows(ConfigException.class, () -> SerdeConfig.registryClient(Map.of()));
        assertThrows(
                ConfigException.class,
                () -> SerdeConfig.registryClient(Map.of("schema.registry.url", "localhost:8081")));
        assertThrows(
                ConfigException.class,
                () -> SerdeConfig.registryClient(Map.of(
                        "schema.registry.url", "http://h:8081", "basic.auth.credentials.source", "SASL_INHERIT")));
        assertThrows(
                ConfigException.class,
                () -> SerdeConfig.registryClient(Map.of(
                        "schema.registry.url", "http://h:8081", "ata.schema.registry.connect.timeout.ms", "soon")));
        assertThrows(ConfigException.class, () -> SerdeConfig.recordClass(Map.of(), false));
        ConfigException notFound = assertThrows(
                ConfigException.class,
                () -> SerdeConfig.recordClass(Map.of("ata.avro.record.class", "io.ata.schemas.Nope"), false));
        assertTrue(notFound.getMessage().contains("io.ata.schemas.Nope"), notFound.getMessage());
        assertThrows(
                ConfigException.class,
                () -> SerdeConfig.recordClass(Map.of("ata.avro.record.class", "java.lang.String"), false));
        assertEquals(
                TaskTiming.class,
                SerdeConfig.recordClass(Map.of("ata.avro.key.record.class", "io.ata.schemas.TaskTiming"), true));
    }

    @Test
    void withoutAutoRegisterTheSchemaMustAlreadyBeRegistered() {
        try (EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry().bind("no-auto")) {
            Map<String, Object> props = Map.of(
                    "schema.registry.url", "embedded://no-auto",
                    "ata.avro.record.class", "io.ata.schemas.TaskTiming",
                    "auto.register.schemas", "false");
            SerializationException error = assertThrows(
                    SerializationException.class,
                    () -> configuredSerializer(new AvroSerializer<TaskTiming>(), props)
                            .serialize("ata.timings", SampleRecords.timing()));
            assertTrue(
                    error.getMessage().contains("not registered under subject ata.timings-value"), error.getMessage());

            int id = registry.register("ata.timings-value", TaskTiming.getClassSchema());
            byte[] bytes = configuredSerializer(new AvroSerializer<TaskTiming>(), props)
                    .serialize("ata.timings", SampleRecords.timing());
            AvroSerdeRoundTripTest.assertHeader(bytes, id);
        }
    }

    @Test
    void unconfiguredSerdesSaySo() {
        assertThrows(
                IllegalStateException.class,
                () -> new AvroSerializer<TaskTiming>().serialize("t", SampleRecords.timing()));
        assertThrows(
                IllegalStateException.class,
                () -> new AvroDeserializer<TaskTiming>().deserialize("t", new byte[] {0, 0, 0, 0, 1}));
        assertThrows(IllegalStateException.class, () -> new AvroSerde<TaskTiming>().serializer());
    }

    private static <T> Serializer<T> configuredSerializer(Serializer<T> serializer, Map<String, ?> props) {
        serializer.configure(props, false);
        return serializer;
    }

    private static <T> Deserializer<T> configuredDeserializer(Deserializer<T> deserializer, Map<String, ?> props) {
        deserializer.configure(props, false);
        return deserializer;
    }
}
