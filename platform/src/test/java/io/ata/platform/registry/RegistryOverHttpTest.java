package io.ata.platform.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.RestSchemaRegistryClient;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.schemas.serde.AvroDeserializer;
import io.ata.schemas.serde.AvroSerde;
import io.ata.schemas.serde.AvroSerializer;
import io.ata.schemas.serde.SerdeConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The embedded registry served over HTTP, as serdes and the REST client of other processes use it. */
class RegistryOverHttpTest {
    private static final String TOPIC = "ata.timings";

    @Test
    void servingAndStoppingKeepsTheSchemas() {
        try (EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry()) {
            registry.register("a-value", TaskTiming.getClassSchema());
            try (SchemaRegistryServer server = SchemaRegistryServer.start(registry)) {
                assertTrue(server.url().matches("http://127\\.0\\.0\\.1:\\d+"), server.url());
                assertEquals(
                        1,
                        RestSchemaRegistryClient.builder(server.url())
                                .build()
                                .latest("a-value")
                                .id());
            }
            assertEquals(1, registry.latest("a-value").id());
        }
    }

    @Test
    void anHttpUrlTalksToTheRegistryOverRest() {
        try (EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
                SchemaRegistryServer server = SchemaRegistryServer.start(registry)) {
            Map<String, Object> props = new HashMap<>();
            props.put("schema.registry.url", server.url());
            props.put("ata.avro.record.class", TaskAssignment.class); // a Class works too
            props.put("basic.auth.user.info", "user:pw"); // ignored by the embedded registry
            props.put("ata.schema.registry.request.timeout.ms", "5000");
            assertTrue(SerdeConfig.registryClient(props) instanceof RestSchemaRegistryClient);

            AvroSerde<TaskAssignment> serde = new AvroSerde<>();
            serde.configure(props, false);
            TaskAssignment assignment = assignment();
            byte[] bytes = serde.serializer().serialize("ata.tasks", assignment);
            assertEquals(1, registry.latest("ata.tasks-value").id(), "registered over HTTP");
            assertEquals(assignment, serde.deserializer().deserialize("ata.tasks", bytes));
        }
    }

    @Test
    void aRegistryOutageIsNotAFormatError() {
        try (EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry()) {
            SchemaRegistryServer server = SchemaRegistryServer.start(registry);
            String url = server.url();
            byte[] bytes = new AvroSerializer<>(registry, TaskTiming.class).serialize(TOPIC, timing());
            server.close();
            AvroDeserializer<TaskTiming> deserializer = new AvroDeserializer<>(
                    RestSchemaRegistryClient.builder(url)
                            .connectTimeout(Duration.ofSeconds(2))
                            .build(),
                    TaskTiming.class);
            SchemaRegistryException error =
                    assertThrows(SchemaRegistryException.class, () -> deserializer.deserialize(TOPIC, bytes));
            // SchemaRegistryException is not a SerializationException (the compiler checks it), so a
            // handler that dead-letters SerializationExceptions lets this one through to retry
            assertTrue(error.getMessage().startsWith("Schema Registry unreachable"), error.getMessage());
        }
    }

    private static TaskTiming timing() {
        return TaskTiming.newBuilder()
                .setJob("job")
                .setRound(3)
                .setTaskId("job/3/0")
                .setWorkerId("w1")
                .setModelVersion(2)
                .setComputeMs(12.5)
                .setStartMs(1_700_000_000_010L)
                .setEndMs(1_700_000_000_023L)
                .setStatus(TimingStatus.COMPLETED)
                .build();
    }

    private static TaskAssignment assignment() {
        return TaskAssignment.newBuilder()
                .setJob("job")
                .setRound(3)
                .setModelVersion(2)
                .setWorkerId("w1")
                .setPartition(0)
                .setTaskIds(List.of("job/3/0", "job/3/1"))
                .setBatch(2)
                .setPolicy("ata")
                .setCreatedMs(1_700_000_000_001L)
                .build();
    }
}
