package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The broker's counters in a registry, and the JSON of {@code GET /metrics} built from them. */
class BrokerMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double count(String application, String meter, String... tags) {
        return registry.get(meter)
                .tag(BrokerMetrics.APPLICATION, application)
                .tags(tags)
                .counter()
                .count();
    }

    @Test
    void theJsonHasTheKeysOfEveryCounterAboveZero() {
        BrokerMetrics m = new BrokerMetrics(registry, "ata-broker");
        assertEquals(Map.of(), m.snapshot(), "nothing counted yet: no key");

        m.deadLetter("ata.rounds", Refusal.Kind.UNDECODABLE);
        m.deadLetter("ata.rounds", Refusal.Kind.UNDECODABLE);
        m.deadLetter("ata.workers", Refusal.Kind.INVALID_HEARTBEAT);
        m.count(BrokerCounter.DUPLICATES_IGNORED);
        m.count(BrokerCounter.STALE_OPENS_IGNORED);
        m.count(BrokerCounter.ROUNDS_REOPENED);
        m.count(BrokerCounter.ROUNDS_DEFERRED);
        m.count(BrokerCounter.HEARTBEATS_UNCHANGED);
        m.count(BrokerCounter.HEARTBEATS_UNCHANGED);
        m.count(BrokerCounter.ASSIGNMENTS_MISSING_PARTITION);

        assertEquals(
                Map.of(
                        "dead-letters.ata.rounds", 2L,
                        "dead-letters.ata.workers", 1L,
                        "duplicate-closes", 1L,
                        "stale-opens", 1L,
                        "re-opened-rounds", 1L,
                        "deferred-rounds", 1L,
                        "heartbeats-unchanged", 2L,
                        "assignments-to-missing-partition", 1L),
                m.snapshot());
        assertEquals(2, count("ata-broker", BrokerMetrics.DEAD_LETTERS, BrokerMetrics.SOURCE, "ata.rounds"));
        assertEquals(1, count("ata-broker", BrokerMetrics.DEAD_LETTERS, BrokerMetrics.SOURCE, "ata.workers"));
        assertEquals(1, count("ata-broker", BrokerCounter.DUPLICATES_IGNORED.meterName()));
        assertEquals(1, count("ata-broker", BrokerCounter.STALE_OPENS_IGNORED.meterName()));
        assertEquals(1, count("ata-broker", BrokerCounter.ROUNDS_REOPENED.meterName()));
        assertEquals(1, count("ata-broker", BrokerCounter.ROUNDS_DEFERRED.meterName()));
        assertEquals(2, count("ata-broker", BrokerCounter.HEARTBEATS_UNCHANGED.meterName()));
        assertEquals(1, count("ata-broker", BrokerCounter.ASSIGNMENTS_MISSING_PARTITION.meterName()));
    }

    @Test
    void twoBrokerApplicationsInOneRegistryKeepTheirOwnCounts() {
        BrokerMetrics a = new BrokerMetrics(registry, "a.broker");
        BrokerMetrics b = new BrokerMetrics(registry, "b.broker");

        a.count(BrokerCounter.ROUNDS_DEFERRED);
        b.count(BrokerCounter.ROUNDS_DEFERRED);
        b.count(BrokerCounter.ROUNDS_DEFERRED);

        assertEquals(1, count("a.broker", BrokerCounter.ROUNDS_DEFERRED.meterName()));
        assertEquals(2, count("b.broker", BrokerCounter.ROUNDS_DEFERRED.meterName()));
        assertEquals(Map.of("deferred-rounds", 1L), a.snapshot());
        assertEquals(Map.of("deferred-rounds", 2L), b.snapshot());
    }

    @Test
    void aStoppedInstancesCountersLeaveTheRegistryButItsJsonStays() {
        BrokerMetrics m = new BrokerMetrics(registry, "ata-broker");
        m.deadLetter("ata.rounds", Refusal.Kind.UNDECODABLE);

        m.unregister();

        assertTrue(registry.getMeters().isEmpty(), registry.getMeters().toString());
        assertEquals(Map.of("dead-letters.ata.rounds", 1L), m.snapshot());
    }
}
