package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.Records;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a heartbeat asks of the broker's transaction: a membership change (or a worker back after
 * the liveness timeout) is committed at once, a refresh of an unchanged worker goes with the next
 * interval commit, a recent repeat goes nowhere.
 */
class HeartbeatValidatorTest {
    private static final long LIVENESS_MS = 10_000;
    private static final long REFRESH_MS = LIVENESS_MS / 4;
    private static final long NOW = 1_000_000;

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final Topics topics = new Topics("hb.");
    private final Serde<WorkerHeartbeat> serde = topics.membership().valueSerde(registry);
    private final MockProcessorContext<String, SpecificRecord> context = new MockProcessorContext<>();
    private KeyValueStore<String, WorkerHeartbeat> membership;
    private HeartbeatValidator validator;

    @BeforeEach
    void setUp() {
        context.setCurrentSystemTimeMs(NOW);
        membership = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore(BrokerTopology.MEMBERSHIP_STORE), Serdes.String(), serde)
                .withLoggingDisabled()
                .build();
        membership.init(context.getStateStoreContext(), membership);
        context.addStateStore(membership);
        validator = new HeartbeatValidator(
                serde.deserializer(),
                topics.workers().name(),
                new BrokerMetrics(new SimpleMeterRegistry(), "hb-test"),
                LIVENESS_MS,
                new HeartbeatRules(() -> 8, LIVENESS_MS));
        validator.init(context);
    }

    /** Sends {@code h} at its time; its forward, if any, is stored as the global store would once committed. */
    private void send(WorkerHeartbeat h) {
        context.resetCommit();
        context.resetForwards();
        context.setCurrentSystemTimeMs(h.getTimestampMs()); // sent just now
        byte[] bytes = serde.serializer().serialize(topics.workers().name(), h);
        validator.process(new Record<>(h.getWorkerId().getBytes(), bytes, h.getTimestampMs()));
        context.forwarded()
                .forEach(f -> membership.put(
                        f.record().key(), (WorkerHeartbeat) f.record().value()));
    }

    @Test
    void aChangeIsCommittedAtOnceARefreshWithTheIntervalARepeatNotAtAll() {
        send(Records.heartbeat("w1", NOW, 0).build());
        assertEquals(1, context.forwarded(BrokerTopology.MEMBERSHIP_SINK).size(), "a new worker");
        assertTrue(context.committed(), "a new worker is committed at once");

        send(Records.heartbeat("w1", NOW + 1_000, 0).build());
        assertEquals(
                0,
                context.forwarded(BrokerTopology.MEMBERSHIP_SINK).size(),
                "unchanged, stored one recent: nothing to tell");
        assertFalse(context.committed());

        send(Records.heartbeat("w1", NOW + REFRESH_MS, 0).build());
        assertEquals(
                1,
                context.forwarded(BrokerTopology.MEMBERSHIP_SINK).size(),
                "unchanged, stored one a refresh period old: refreshed");
        assertFalse(context.committed(), "a refresh goes with the next interval commit");

        send(Records.heartbeat("w1", NOW + REFRESH_MS + 100, 0, 1).build());
        assertEquals(1, context.forwarded(BrokerTopology.MEMBERSHIP_SINK).size(), "new partitions");
        assertTrue(context.committed(), "new partitions are committed at once");

        long back = NOW + REFRESH_MS + 100 + LIVENESS_MS;
        send(Records.heartbeat("w1", back, 0, 1).build());
        assertEquals(
                1,
                context.forwarded(BrokerTopology.MEMBERSHIP_SINK).size(),
                "unchanged, but silent for the liveness timeout");
        assertTrue(context.committed(), "a worker back after counting as gone is committed at once");

        send(Records.heartbeat("w1", back + 100, 0, 1)
                .setStatus(WorkerStatus.LEAVING)
                .build());
        assertEquals(1, context.forwarded(BrokerTopology.MEMBERSHIP_SINK).size(), "leaving");
        assertTrue(context.committed(), "a leaver is committed at once");
    }
}
