package io.ata.workeragent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task partitions this agent's consumer owns, kept up to date by the consumer group's
 * rebalances. The broker writes a worker's assignment into a partition listed in its latest
 * heartbeat, so after every change the agent announces the new list at once ({@code onChange}),
 * not only at the next periodic heartbeat. Partitions that go (revoked or lost) are also passed to
 * {@code onGone} first, so the agent drops what it parked of them.
 */
final class OwnedPartitions implements ConsumerRebalanceListener {

    private static final Logger log = LoggerFactory.getLogger(OwnedPartitions.class);

    private final String topic;
    private final Runnable onChange;
    private final Consumer<List<TopicPartition>> onGone;
    private final ConcurrentSkipListSet<Integer> partitions = new ConcurrentSkipListSet<>();
    /** Per owned partition, the assignment it came in: a partition lost and given back is owned anew. */
    private final Map<Integer, Long> epochs = new ConcurrentHashMap<>();

    private final AtomicLong assignments = new AtomicLong();

    /**
     * @param topic the tasks topic (partitions of other topics are ignored)
     * @param onChange called after every assignment, revocation or loss, on the consumer's thread
     * @param onGone given the task partitions revoked or lost, on the consumer's thread
     */
    OwnedPartitions(String topic, Runnable onChange, Consumer<List<TopicPartition>> onGone) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.onChange = Objects.requireNonNull(onChange, "onChange");
        this.onGone = Objects.requireNonNull(onGone, "onGone");
    }

    /** The owned partitions, ascending. */
    List<Integer> snapshot() {
        return new ArrayList<>(partitions);
    }

    /** Whether {@code partition} of the tasks topic is owned now. */
    boolean owns(int partition) {
        return partitions.contains(partition);
    }

    /**
     * Which ownership of {@code partition} this is: a number that changes each time the partition
     * is assigned, so that work read under one ownership is told from work read under the next,
     * after the partition was lost and given back; -1 if not owned.
     */
    long epoch(int partition) {
        return epochs.getOrDefault(partition, -1L);
    }

    /** Forgets every partition (the consumer is gone). */
    void clear() {
        partitions.clear();
        epochs.clear();
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        long epoch = assignments.incrementAndGet();
        assigned.stream().filter(tp -> tp.topic().equals(topic)).forEach(tp -> {
            epochs.put(tp.partition(), epoch);
            partitions.add(tp.partition());
        });
        changed("assigned", assigned);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
        remove(revoked);
        changed("revoked", revoked);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
        remove(lost);
        changed("lost", lost);
    }

    private void remove(Collection<TopicPartition> gone) {
        List<TopicPartition> ours =
                gone.stream().filter(tp -> tp.topic().equals(topic)).toList();
        ours.forEach(tp -> {
            partitions.remove(tp.partition());
            epochs.remove(tp.partition());
        });
        if (!ours.isEmpty()) {
            onGone.accept(ours);
        }
    }

    private void changed(String what, Collection<TopicPartition> which) {
        log.info("task partitions {}: {}; now owning {}", what, which, partitions);
        try {
            onChange.run();
        } catch (RuntimeException e) {
            // never fail the consumer's poll over a heartbeat: the periodic one follows shortly
            log.warn("announcing owned partitions failed: {}", e.toString());
        }
    }
}
