package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.serde.AvroSerde;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

/** The round processor as Kafka Streams drives its life: the same instance initialized again. */
class RoundProcessorTest {
    private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final Topics topics = new Topics();
    private final Serde<RoundEvent> rounds = topics.rounds().valueSerde(registry);
    private final BrokerMetrics metrics = new BrokerMetrics(new SimpleMeterRegistry(), "round-processor-test");

    private Record<byte[], byte[]> opened(long round) {
        RoundEvent event = RoundEvents.opened("job", round, 2, "uta", NOW);
        return new Record<>(
                "job".getBytes(), rounds.serializer().serialize(topics.rounds().name(), event), NOW);
    }

    /**
     * After a task is revived under exactly-once (its store wiped and restored from the changelog,
     * which lacks the aborted transaction's writes), Kafka Streams initializes the same processor
     * again: it must go on from the store, not from the jobs it held in memory. Here the store is
     * set back to round 1; round 2 is then a new round, not a re-opened one.
     */
    @Test
    void aProcessorInitializedAgainGoesOnFromTheStore() {
        MembershipMirror membership = new MembershipMirror();
        membership.put("w0", Records.heartbeat("w0", NOW, 0).build());
        RoundProcessor processor = new RoundProcessor(
                rounds.deserializer(), topics.rounds().name(), BrokerSettings.defaults(), metrics, membership);
        MockProcessorContext<String, SpecificRecord> context = new MockProcessorContext<>();
        context.setCurrentSystemTimeMs(NOW);
        KeyValueStore<String, JobState> jobs = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore(BrokerTopology.JOBS_STORE),
                        Serdes.String(),
                        new AvroSerde<>(registry, JobState.class))
                .withLoggingDisabled()
                .build();
        jobs.init(context.getStateStoreContext(), jobs);
        context.addStateStore(jobs);
        KeyValueStore<String, JobWorkerState> workers = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore(BrokerTopology.JOB_WORKERS_STORE),
                        Serdes.String(),
                        // a registry of its own: the mock context names one changelog topic for every store
                        new AvroSerde<>(new EmbeddedSchemaRegistry(), JobWorkerState.class))
                .withLoggingDisabled()
                .build();
        workers.init(context.getStateStoreContext(), workers);
        context.addStateStore(workers);
        KeyValueStore<String, byte[]> learned = Stores.keyValueStoreBuilder(
                        Stores.inMemoryKeyValueStore(BrokerTopology.JOB_LEARNED_STORE),
                        Serdes.String(),
                        Serdes.ByteArray())
                .withLoggingDisabled()
                .build();
        learned.init(context.getStateStoreContext(), learned);
        context.addStateStore(learned);

        processor.init(context);
        processor.process(opened(1));
        JobState afterRound1 = jobs.get("job");
        processor.process(opened(2));
        assertEquals(2, jobs.get("job").getLastOpenedRound());

        jobs.put("job", afterRound1); // restored without round 2's aborted writes
        processor.init(context);
        processor.process(opened(2));
        assertEquals(0L, metrics.snapshot().getOrDefault("re-opened-rounds", 0L), "round 2 is new to the store");
        assertEquals(2, jobs.get("job").getLastOpenedRound());
    }
}
