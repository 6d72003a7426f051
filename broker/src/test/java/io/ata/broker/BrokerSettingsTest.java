package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.ConstantConvention;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerSettingsTest {
    /** Every setting away from its default, so that a builder dropping one shows. */
    private static final BrokerSettings CUSTOM = BrokerSettings.builder()
            .topicPrefix("lab.")
            .defaultPolicy("uta")
            .knownMeans(Map.of("w0", 12.5))
            .convention(ConstantConvention.EXPERIMENTS)
            .alpha(3.0)
            .eta(0.7)
            .liveness(Duration.ofSeconds(4), Duration.ofMillis(250))
            .pipelinedAllocation(false)
            .jobRetention(Duration.ofHours(2))
            .fleetCheck(Duration.ofSeconds(2))
            .build();

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        BrokerSettings d = BrokerSettings.defaults();
        assertEquals("ata.", d.topicPrefix());
        assertEquals("ata-auto", d.defaultPolicy());
        assertEquals(Map.of(), d.knownMeans());
        assertEquals(ConstantConvention.PAPER, d.convention());
        assertTrue(Double.isNaN(d.alpha()) && Double.isNaN(d.eta()));
        assertEquals(Duration.ofSeconds(10), d.livenessTimeout());
        assertEquals(Duration.ofSeconds(1), d.livenessCheck());
        assertTrue(d.pipelinedAllocation());
        assertEquals(Duration.ofDays(1), d.jobRetention());
        assertEquals(Duration.ofSeconds(5), d.fleetCheck());
    }

    @Test
    void aBuilderFromSettingsKeepsEveryOne() {
        assertEquals(CUSTOM, CUSTOM.toBuilder().build());
        assertFalse(CUSTOM.equals(BrokerSettings.defaults()));
    }

    @Test
    void eachWitherChangesItsSettingOnly() {
        assertEquals(CUSTOM.toBuilder().topicPrefix("x.").build(), CUSTOM.withTopicPrefix("x."));
        assertEquals("x.", CUSTOM.withTopicPrefix("x.").topicPrefix());
        assertEquals(Map.of(), CUSTOM.withKnownMeans(Map.of()).knownMeans());
        assertEquals(CUSTOM.defaultPolicy(), CUSTOM.withKnownMeans(Map.of()).defaultPolicy());
        BrokerSettings live = CUSTOM.withLiveness(Duration.ofSeconds(30), Duration.ofSeconds(2));
        assertEquals(Duration.ofSeconds(30), live.livenessTimeout());
        assertEquals(Duration.ofSeconds(2), live.livenessCheck());
        assertEquals(CUSTOM.jobRetention(), live.jobRetention());
        assertTrue(CUSTOM.withPipelinedAllocation(true).pipelinedAllocation());
        assertEquals(CUSTOM.alpha(), CUSTOM.withPipelinedAllocation(true).alpha());
        assertEquals(
                Duration.ofHours(5),
                CUSTOM.withJobRetention(Duration.ofHours(5)).jobRetention());
        assertEquals(CUSTOM.eta(), CUSTOM.withJobRetention(Duration.ofHours(5)).eta());
        assertEquals(
                Duration.ofMillis(500),
                CUSTOM.withFleetCheck(Duration.ofMillis(500)).fleetCheck());
        assertEquals(
                CUSTOM.jobRetention(),
                CUSTOM.withFleetCheck(Duration.ofMillis(500)).jobRetention());
    }

    @Test
    void theBuilderRefusesWhatTheSettingsRefuse() {
        BrokerSettings.Builder b = BrokerSettings.builder();
        assertThrows(
                IllegalArgumentException.class,
                () -> b.jobRetention(Duration.ofMinutes(9)).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> BrokerSettings.builder()
                        .liveness(Duration.ZERO, Duration.ofSeconds(1))
                        .build());
        assertThrows(
                IllegalArgumentException.class,
                () -> BrokerSettings.builder().fleetCheck(Duration.ZERO).build());
    }
}
