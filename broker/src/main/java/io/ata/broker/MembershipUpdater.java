package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the global membership store, and its decoded {@link MembershipMirror}: the latest valid
 * heartbeat of every worker.
 *
 * <p>The membership topic is the broker's own, but anyone allowed to write to it can put anything
 * there, and a global store's thread that fails to read a record stops the whole application. So
 * this reads bytes, decodes them itself and checks them by the same {@link HeartbeatRules} as the
 * heartbeats on {@code workers}; what fails is skipped, logged and counted ({@link
 * BrokerMetrics#MEMBERSHIP_REFUSED}), here at every read, at start too; its dead letter is written once,
 * by {@link MembershipAudit} (a global store's processor has no output).
 */
final class MembershipUpdater implements Processor<byte[], byte[], Void, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipUpdater.class);

    private final MembershipCheck check;
    private final String topic;
    private final BrokerMetrics metrics;
    private final MembershipMirror mirror;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<String, WorkerHeartbeat> store;

    MembershipUpdater(MembershipCheck check, String topic, BrokerMetrics metrics, MembershipMirror mirror) {
        this.check = check;
        this.topic = topic;
        this.metrics = metrics;
        this.mirror = mirror;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        this.store = context.getStateStore(BrokerTopology.MEMBERSHIP_STORE);
        // whatever the store holds already: Kafka Streams restores it (through another instance of
        // this processor) before it initializes this one
        Map<String, WorkerHeartbeat> stored = new HashMap<>();
        try (KeyValueIterator<String, WorkerHeartbeat> it = store.all()) {
            it.forEachRemaining(kv -> stored.put(kv.key, kv.value));
        }
        mirror.replace(stored);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        MembershipCheck.Verdict verdict = check.judge(record.key(), record.value(), context.currentSystemTimeMs());
        if (verdict instanceof MembershipCheck.Take take) {
            store.put(take.worker(), take.heartbeat());
            mirror.put(take.worker(), take.heartbeat());
            metrics.membershipDelay().stored(take.heartbeat().getTimestampMs(), context.currentSystemTimeMs());
        } else if (verdict instanceof MembershipCheck.Remove remove) {
            store.delete(remove.worker());
            mirror.remove(remove.worker());
        } else if (verdict instanceof MembershipCheck.Skip skip) {
            refuse(skip.refusal());
        }
    }

    private void refuse(Refusal refusal) {
        metrics.membershipRefused(refusal.kind());
        String where = context.recordMetadata()
                .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
                .orElse(topic);
        LOG.warn("skipped record {} of the membership: {}", where, refusal.reason());
    }
}
