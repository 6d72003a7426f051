package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Judges a raw record of the membership topic: what the global store takes and what it skips.
 * One judge for the store ({@link MembershipUpdater}) and for the audit that dead-letters what the
 * store skips ({@link MembershipAudit}), so the two never disagree on a record.
 */
final class MembershipCheck {
    private final RecordDecoder<WorkerHeartbeat> decoder;
    private final String topic;
    private final HeartbeatRules rules;

    MembershipCheck(Deserializer<WorkerHeartbeat> heartbeats, String topic, HeartbeatRules rules) {
        this.decoder = new RecordDecoder<>(heartbeats, "membership heartbeat");
        this.topic = topic;
        this.rules = rules;
    }

    /** What a record of the membership topic means for the store. */
    sealed interface Verdict {}

    /** A valid heartbeat: the store keeps it as its worker's. */
    record Take(String worker, WorkerHeartbeat heartbeat) implements Verdict {}

    /** A tombstone: the worker left the membership. */
    record Remove(String worker) implements Verdict {}

    /** A record the store skips, and why. */
    record Skip(Refusal refusal) implements Verdict {}

    /**
     * The verdict on the record with raw {@code key} and {@code value}, read at wall-clock {@code nowMs}.
     *
     * @throws io.ata.schemas.registry.SchemaRegistryException if the Schema Registry could not be asked
     */
    Verdict judge(byte[] key, byte[] value, long nowMs) {
        if (key == null) {
            return new Skip(new Refusal(Refusal.Kind.INVALID_HEARTBEAT, "membership record without key"));
        }
        String worker = new String(key, StandardCharsets.UTF_8);
        if (value == null) {
            return new Remove(worker);
        }
        Decoded<WorkerHeartbeat> decoded = decoder.decode(topic, value);
        if (decoded instanceof Decoded.Undecodable<WorkerHeartbeat> bad) {
            return new Skip(new Refusal(Refusal.Kind.UNDECODABLE, bad.reason()));
        }
        WorkerHeartbeat h = ((Decoded.Valid<WorkerHeartbeat>) decoded).record();
        String problem = rules.problem(key, h, nowMs);
        if (problem != null) {
            return new Skip(new Refusal(Refusal.Kind.INVALID_HEARTBEAT, problem));
        }
        return new Take(worker, h);
    }
}
