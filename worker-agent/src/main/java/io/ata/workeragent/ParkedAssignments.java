package io.ata.workeragent;

import io.ata.schemas.TaskAssignment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The assignments an agent holds until their model version comes (parked by the
 * {@link AssignmentRunner}: a version or two ahead of the job's newest, as under pipelined allocation,
 * or further, for a bounded time), per task partition, and so how far each partition's consumer
 * offset may be committed.
 *
 * <p>The agent goes on with the records after a parked one, so offsets are no longer marked done in
 * order. The offset committed for a partition never passes its oldest parked record: a restart or
 * a rebalance must deliver that record again ({@link HeldOffsets}).
 *
 * <p>Nothing here times out: each parked assignment knows when it was parked, and the runner decides
 * when one has waited too long ({@link AssignmentRunner#overdue}): one a version or two ahead stays
 * while its job's model moves, and goes once the job looks stopped (its trainer gone), so that it
 * does not hold back its partition's committed offset for good.
 *
 * <p>The task thread parks, runs and forgets; the model cache's thread asks {@link #awaits} to
 * decide whether a new version should wake the task thread. Hence the lock.
 */
final class ParkedAssignments {

    /**
     * A parked assignment: the record it came in (its partition and offset), what it says, and when
     * it was parked ({@link System#nanoTime()}).
     */
    record Parked(ConsumerRecord<byte[], byte[]> record, TaskAssignment assignment, long parkedAtNanos) {
        Parked {
            Objects.requireNonNull(record, "record");
            Objects.requireNonNull(assignment, "assignment");
        }

        TopicPartition partition() {
            return new TopicPartition(record.topic(), record.partition());
        }

        /** How long it has been parked, at {@code nowNanos}. */
        Duration waited(long nowNanos) {
            return Duration.ofNanos(nowNanos - parkedAtNanos);
        }
    }

    /** Per partition, its parked records by offset (guarded by this). */
    private final Map<TopicPartition, TreeMap<Long, Parked>> partitions = new HashMap<>();

    private final HeldOffsets<TopicPartition> held = new HeldOffsets<>(); // guarded by this

    /**
     * Holds {@code parked} until its model version comes; its partition is not committed past it.
     * The same record parked again (delivered again after a failed attempt) keeps its first time.
     */
    synchronized void park(Parked parked) {
        partitions
                .computeIfAbsent(parked.partition(), tp -> new TreeMap<>())
                .putIfAbsent(parked.record().offset(), parked);
        held.hold(parked.partition(), parked.record().offset());
    }

    /**
     * Holds the record at {@code offset} of {@code partition} without parking it: handed to one of
     * several workers that run a partition's records side by side ({@link MultiDeviceAgent}), it is
     * not committed past until it is {@link #done}.
     */
    synchronized void hold(TopicPartition partition, long offset) {
        held.hold(partition, offset);
    }

    /** Whether the record at {@code offset} of {@code partition} is parked now. */
    synchronized boolean isParked(TopicPartition partition, long offset) {
        TreeMap<Long, Parked> parked = partitions.get(partition);
        return parked != null && parked.containsKey(offset);
    }

    /** How many assignments are parked now. */
    synchronized int size() {
        return partitions.values().stream().mapToInt(Map::size).sum();
    }

    /** Whether an assignment of {@code job} is parked for a version at most {@code version}. */
    synchronized boolean awaits(String job, long version) {
        return partitions.values().stream()
                .flatMap(p -> p.values().stream())
                .map(Parked::assignment)
                .anyMatch(a -> a.getJob().equals(job) && a.getModelVersion() <= version);
    }

    /** Every parked assignment, the oldest of each partition first. */
    synchronized List<Parked> all() {
        List<Parked> all = new ArrayList<>();
        partitions.values().forEach(p -> all.addAll(p.values()));
        all.sort(Comparator.comparing((Parked p) -> p.record().partition())
                .thenComparingLong(p -> p.record().offset()));
        return all;
    }

    /**
     * The offset to commit when the record at {@code offset} of {@code partition} is marked done:
     * past every record done (that one included), but not past a record still parked (other than
     * that one).
     */
    synchronized long commitOffset(TopicPartition partition, long offset) {
        return held.commitOffset(partition, offset);
    }

    /** The record at {@code offset} of {@code partition} is marked done (committed): no longer parked. */
    synchronized void done(TopicPartition partition, long offset) {
        TreeMap<Long, Parked> parked = partitions.get(partition);
        if (parked != null) {
            parked.remove(offset);
            if (parked.isEmpty()) {
                partitions.remove(partition);
            }
        }
        held.done(partition, offset);
    }

    /**
     * Forgets {@code gone} partitions (revoked or lost): their next owner reads them from the
     * committed offset, which is not past their parked records. Returns how many were parked there.
     */
    synchronized int forget(Collection<TopicPartition> gone) {
        int dropped = 0;
        for (TopicPartition partition : gone) {
            TreeMap<Long, Parked> parked = partitions.remove(partition);
            dropped += parked == null ? 0 : parked.size();
        }
        held.forget(gone);
        return dropped;
    }

    /** Forgets everything (the agent stops: what is parked is not run, nor committed). */
    synchronized void clear() {
        partitions.clear();
        held.clear();
    }
}
