package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.kafka.Decoded;
import io.ata.schemas.kafka.RecordDecoder;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global membership store: the latest valid heartbeat of every worker.
 *
 * <p>The membership topic is the broker's own, but anyone allowed to write to it can put anything
 * there, and a global store's thread that fails to read a record stops the whole application. So
 * this reads bytes, decodes them itself and checks them by the same {@link HeartbeatRules} as the
 * heartbeats on {@code workers}; what fails is skipped, logged and counted ({@link
 * BrokerMetrics#MEMBERSHIP_REFUSED}). It cannot be dead-lettered: a global store's processor has no
 * output. The same happens when the store is rebuilt from the topic at start.
 */
final class MembershipUpdater implements Processor<byte[], byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipUpdater.class);

    private final RecordDecoder<WorkerHeartbeat> decoder;
    private final String topic;
    private final HeartbeatRules rules;
    private final BrokerMetrics metrics;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, WorkerHeartbeat> store;

    MembershipUpdater(
            Deserializer<WorkerHeartbeat> decoder, String topic, HeartbeatRules rules, BrokerMetrics metrics) {
        this.decoder = new RecordDecoder<>(decoder, "membership heartbeat");
        this.topic = topic;
        this.rules = rules;
        this.metrics = metrics;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.store = context.getStateStore(BrokerTopology.MEMBERSHIP_STORE);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        if (record.key() == null) {
            refuse(Refusal.Kind.INVALID_HEARTBEAT, "membership record without key");
            return;
        }
        String worker = new String(record.key(), StandardCharsets.UTF_8);
        if (record.value() == null) {
            store.delete(worker); // a tombstone: the worker left the membership
            return;
        }
        Decoded<WorkerHeartbeat> decoded = decoder.decode(topic, record.value());
        if (decoded instanceof Decoded.Undecodable<WorkerHeartbeat> bad) {
            refuse(Refusal.Kind.UNDECODABLE, bad.reason());
            return;
        }
        WorkerHeartbeat h = ((Decoded.Valid<WorkerHeartbeat>) decoded).record();
        String problem = rules.problem(record.key(), h, context.currentSystemTimeMs());
        if (problem != null) {
            refuse(Refusal.Kind.INVALID_HEARTBEAT, problem);
            return;
        }
        store.put(worker, h);
    }

    private void refuse(Refusal.Kind kind, String reason) {
        metrics.membershipRefused(kind);
        String where = context.recordMetadata()
                .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
                .orElse(topic);
        LOG.warn("skipped record {} of the membership: {}", where, reason);
    }
}
