package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.decoding.RecordDecoder;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Decodes and checks the agents' heartbeats; valid ones go on to the membership topic (which
 * backs the global membership store), anything else to the dead-letter topic with the reason.
 *
 * <p>A heartbeat that says nothing new (same host, device, capacity, partitions and status as
 * the membership store holds) is forwarded only to refresh the stored time, at most once per
 * a quarter of the liveness timeout: membership changes go on at once, and a
 * live worker's stored heartbeat is never older than the refresh period plus its interval. A
 * fleet's heartbeats would otherwise be a transaction stream of their own (measured: 32 agents
 * at 2 heartbeats per second added about 5 ms to each round's control overhead).
 */
final class HeartbeatValidator implements Processor<byte[], byte[], String, SpecificRecord> {
    private final RecordDecoder<WorkerHeartbeat> decoder;
    private final BrokerMetrics metrics;
    private final DeadLetterOutput deadLetters;
    private final long livenessTimeoutMs;
    private final long refreshMs;
    private final HeartbeatRules rules;
    private ProcessorContext<String, SpecificRecord> context;
    private KeyValueStore<String, WorkerHeartbeat> membership;

    /**
     * @param livenessTimeoutMs a worker whose stored heartbeat is this old counts as gone; an
     *     unchanged heartbeat is forwarded when the stored one is a quarter of it old
     * @param rules what a heartbeat must keep to
     */
    HeartbeatValidator(
            Deserializer<WorkerHeartbeat> decoder,
            String topic,
            BrokerMetrics metrics,
            long livenessTimeoutMs,
            HeartbeatRules rules) {
        this.decoder = new RecordDecoder<>(decoder, "heartbeat");
        this.metrics = metrics;
        this.deadLetters = new DeadLetterOutput(topic, BrokerTopology.DEAD_LETTER_SINK_WORKERS, metrics);
        this.livenessTimeoutMs = livenessTimeoutMs;
        this.refreshMs = livenessTimeoutMs / 4;
        this.rules = rules;
    }

    @Override
    public void init(ProcessorContext<String, SpecificRecord> context) {
        this.context = context;
        this.membership = context.getStateStore(BrokerTopology.MEMBERSHIP_STORE);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        WorkerHeartbeat h = deadLetters.decodeOrSend(context, record, decoder);
        if (h == null) {
            return;
        }
        String reason = rules.problem(record.key(), h, context.currentSystemTimeMs());
        if (reason != null) {
            deadLetters.send(context, record, new Refusal(Refusal.Kind.INVALID_HEARTBEAT, reason), null);
            return;
        }
        WorkerHeartbeat stored = membership.get(h.getWorkerId());
        boolean sameMembership = stored != null && sameMembership(h, stored);
        long age = stored == null ? 0 : h.getTimestampMs() - stored.getTimestampMs();
        if (sameMembership && age >= 0 && age < refreshMs) {
            metrics.count(BrokerCounter.HEARTBEATS_UNCHANGED); // recent and unchanged: nothing to tell
            return;
        }
        context.forward(
                new Record<String, SpecificRecord>(h.getWorkerId(), h, record.timestamp()),
                BrokerTopology.MEMBERSHIP_SINK);
        if (!sameMembership || age >= livenessTimeoutMs) {
            // The membership store sees it only once committed: a change (a new worker, a leaver,
            // new partitions, a worker back after counting as gone) at once. A refresh waits for
            // the commit interval, well within the liveness timeout: a commit per refresh took a
            // fleet of hundreds of workers' commits from the thread that also answers the rounds'
            // OPENED events.
            context.commit();
        }
    }

    /** Whether {@code h} says what {@code stored} says, but for its time. */
    private static boolean sameMembership(WorkerHeartbeat h, WorkerHeartbeat stored) {
        return WorkerHeartbeat.newBuilder(h)
                .setTimestampMs(stored.getTimestampMs())
                .build()
                .equals(stored);
    }
}
