package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The trainer's settings: required ones, defaults, and the user's client properties. */
class TrainerConfigTest {

    private static TrainerConfig.Builder job() {
        return TrainerConfig.builder().bootstrapServers("kafka:9092").job("j").batch(4);
    }

    @Test
    void defaultsNameTheGroupAndTransactionalIdAfterTheJob() {
        TrainerConfig config = job().build();
        assertEquals("ata-trainer-j", config.groupId());
        assertEquals("ata-trainer-j", config.transactionalId());
        assertEquals("ata.", config.topicPrefix());
        assertEquals(Map.of(), config.clientProperties());
    }

    /** Without a registry each trainer counts in one of its own; a process hands one to all its parts. */
    @Test
    void theMeterRegistryIsTheOneGivenElseOneOfItsOwn() {
        SimpleMeterRegistry shared = new SimpleMeterRegistry();
        assertSame(shared, job().meterRegistry(shared).build().meterRegistry());
        assertInstanceOf(SimpleMeterRegistry.class, job().build().meterRegistry());
        assertNotSame(job().build().meterRegistry(), job().build().meterRegistry());
        assertThrows(NullPointerException.class, () -> job().meterRegistry(null));
    }

    @Test
    void clientPropertiesAreCollectedInOrderAndFrozenAtBuild() {
        Map<String, Object> security = new LinkedHashMap<>();
        security.put("security.protocol", "SASL_SSL");
        security.put("sasl.mechanism", "PLAIN");
        TrainerConfig.Builder builder = job().clientProperty("request.timeout.ms", 1000)
                .clientProperties(security)
                .clientProperty("sasl.mechanism", "SCRAM-SHA-512");
        TrainerConfig config = builder.build();
        builder.clientProperty("acks", "1");

        assertEquals(
                List.of("request.timeout.ms", "security.protocol", "sasl.mechanism"),
                List.copyOf(config.clientProperties().keySet()));
        assertEquals("SCRAM-SHA-512", config.clientProperties().get("sasl.mechanism"));
        assertThrows(
                UnsupportedOperationException.class,
                () -> config.clientProperties().put("acks", "0"));
    }

    @Test
    void refusesPropertiesWithoutANameOrValue() {
        assertThrows(IllegalArgumentException.class, () -> job().clientProperty("", "x"));
        assertThrows(NullPointerException.class, () -> job().clientProperty("acks", null));
        Map<String, Object> withNull = new LinkedHashMap<>();
        withNull.put("acks", null);
        assertThrows(NullPointerException.class, () -> job().clientProperties(withNull));
    }

    @Test
    void requiresTheBootstrapServersTheJobAndTheBatch() {
        assertThrows(
                IllegalArgumentException.class,
                () -> TrainerConfig.builder().job("j").batch(4).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TrainerConfig.builder().bootstrapServers("k:1").batch(4).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TrainerConfig.builder().bootstrapServers("k:1").job("j").build());
    }
}
