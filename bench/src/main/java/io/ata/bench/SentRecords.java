package io.ata.bench;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Every record the soak wrote, by where it landed (topic, partition, offset), so that a dead letter,
 * which names its source record that way, can be matched to it and its latency measured.
 */
public final class SentRecords {
    /** What a record the soak wrote was. */
    public enum Kind {
        /** The first slice of two of a result of the open round, from a worker never assigned the task. */
        FORGED_SLICE,
        /** A whole result of the open round: a task nobody was assigned, or a worker nobody knows. */
        FORGED_RESULT,
        /** A value that does not decode, or a tombstone, on a topic some part reads. */
        BAD
    }

    /**
     * One record the soak wrote.
     *
     * @param timestampMs the record's timestamp (its producer's clock when sent)
     * @param round       the round it was forged for (0 for a bad record)
     * @param what        what it is, for the report (e.g. {@code model: tombstone})
     */
    public record Sent(
            String topic, int partition, long offset, long timestampMs, Kind kind, long round, String what) {}

    private final Map<String, Sent> byPlace = new ConcurrentHashMap<>();

    public void add(RecordMetadata meta, Kind kind, long round, String what) {
        Sent sent = new Sent(meta.topic(), meta.partition(), meta.offset(), meta.timestamp(), kind, round, what);
        byPlace.put(place(sent.topic(), sent.partition(), sent.offset()), sent);
    }

    /** The record the soak wrote at {@code topic}-{@code partition}@{@code offset}, if it wrote one there. */
    public Optional<Sent> at(String topic, int partition, long offset) {
        return Optional.ofNullable(byPlace.get(place(topic, partition, offset)));
    }

    public List<Sent> all() {
        return List.copyOf(byPlace.values());
    }

    public long count(Kind kind) {
        return byPlace.values().stream().filter(s -> s.kind() == kind).count();
    }

    private static String place(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }
}
