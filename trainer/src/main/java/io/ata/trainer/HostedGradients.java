package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One job's results as a {@link TrainerHost}'s shared reader hands them over: the job's share of
 * one reader, instead of a consumer of its own reading every job's results.
 *
 * <p>Exactly once as a consumer of its own would be. The job's group keeps its committed offsets,
 * sent with each round's transaction (without a member generation: the group has no members, and
 * the transactional id, one per job, fences a zombie trainer). To start, and to go back after an
 * error, it attaches to the reader, which hands it every record of the job read from then on, and
 * reads the group's committed offsets: where those are behind the reader's position, it reads the
 * records in between itself with a consumer of its own that it then closes (the catch-up: a
 * restarted job, or one rewound); records before them are dropped. So the open round is read
 * again from the committed offsets, none of a closed round's is seen again, none is missed.
 */
final class HostedGradients implements GradientSource {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    /** Put in the queue to wake a waiting poll. */
    private static final List<ConsumerRecord<byte[], byte[]>> WAKE_UP = List.of();

    private final TrainerConfig config;
    private final String job;
    private final KafkaClientFactory clients;
    private final SharedGradientsReader reader;
    private final LinkedBlockingQueue<List<ConsumerRecord<byte[], byte[]>>> handed = new LinkedBlockingQueue<>();
    private final AtomicBoolean wakeUp = new AtomicBoolean();

    /** Per partition, the first offset counted: the committed one (records before it are a closed round's). */
    private Map<TopicPartition, Long> from = Map.of();
    /** The reader's position when the job attached: the catch-up reads up to it. */
    private Map<TopicPartition, Long> attachedAt;
    /**
     * The partitions the job reads: the reader's when it attached, and any found since (a topic
     * created or grown after): what an error rewinds.
     */
    private final Set<TopicPartition> partitions = new HashSet<>();
    /** The catch-up's consumer while it reads; null otherwise. */
    private volatile Consumer<byte[], byte[]> catchUp;

    private volatile boolean readerFailed;
    private volatile boolean superseded;
    /** The catch-up's records of the job so far, and when it began: for its log line. */
    private long catchUpRecords;

    private long catchUpStartNanos;

    /** Attached to {@code reader} at once: records read from now on are kept for the job. */
    HostedGradients(TrainerConfig config, KafkaClientFactory clients, SharedGradientsReader reader) {
        this.config = config;
        this.job = config.job();
        this.clients = clients;
        this.reader = reader;
        this.attachedAt = reader.attach(job, this);
        partitions.addAll(attachedAt.keySet());
    }

    /** Called by the reader, on its thread, with the job's records of one poll. */
    void handed(List<ConsumerRecord<byte[], byte[]>> records) {
        handed.add(records);
    }

    /** Called by the reader as it attaches the job (again): what it handed over before is read again otherwise. */
    void dropHanded() {
        handed.clear();
    }

    /** Called by the reader when a newer trainer of the job attached: this one stops at its next poll. */
    void superseded() {
        superseded = true;
        handed.add(WAKE_UP);
    }

    /** Called by the reader when it stopped for good: the next poll throws its failure. */
    void readerFailed() {
        readerFailed = true;
        handed.add(WAKE_UP);
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> endOffsets(Duration timeout) {
        try (Consumer<byte[], byte[]> c = clients.shortLivedConsumer(TrainerClients.catchUpReader(config))) {
            List<TopicPartition> partitions =
                    PartitionLookups.of(c, config.topics().gradients().name(), timeout);
            if (partitions.isEmpty()) {
                return Map.of();
            }
            c.assign(partitions); // read_committed end offsets of partitions not assigned log a warning each
            return PartitionLookups.ends(c, partitions, timeout);
        }
    }

    @Override
    public void start(java.util.function.Consumer<Collection<TopicPartition>> leaving) {
        readFromCommitted(false); // no partition is ever taken away: leaving is never told
    }

    @Override
    public void rewindToCommitted(Set<TopicPartition> partitions) {
        if (!partitions.isEmpty()) {
            readFromCommitted(true);
        }
    }

    /**
     * Reads from the group's committed offsets: attached again (the records handed over so far
     * are dropped) where the job was reading, then the records between the committed offsets and
     * the reader's position read by a catch-up, then the records handed over.
     */
    private void readFromCommitted(boolean again) {
        closeCatchUp();
        if (again) {
            throwIfWokenOrFailed(); // superseded: never take the job back from a newer trainer
            attachedAt = reader.attach(job, this); // drops what was handed over before, in one step
            partitions.addAll(attachedAt.keySet());
        }
        Consumer<byte[], byte[]> c = clients.shortLivedConsumer(TrainerClients.catchUpReader(config));
        boolean kept = false;
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(attachedAt.keySet());
            Map<TopicPartition, Long> start = new HashMap<>();
            List<TopicPartition> behind = new ArrayList<>();
            for (Map.Entry<TopicPartition, Long> at : attachedAt.entrySet()) {
                OffsetAndMetadata offset = committed.get(at.getKey());
                long first = offset == null ? 0 : offset.offset(); // none: from the start, as a member would
                start.put(at.getKey(), first);
                if (first < at.getValue()) {
                    behind.add(at.getKey());
                }
            }
            from = start;
            if (!behind.isEmpty()) {
                c.assign(behind);
                behind.forEach(tp -> c.seek(tp, start.get(tp)));
                catchUp = c;
                kept = true;
                catchUpRecords = 0;
                catchUpStartNanos = System.nanoTime();
                log.info(
                        "job {}: reading {} partitions of gradients from its committed offsets up to the trainer host's"
                                + " reader",
                        job,
                        behind.size());
            }
        } finally {
            if (!kept) {
                c.close();
            }
        }
    }

    @Override
    public List<ConsumerRecord<byte[], byte[]>> poll(Duration timeout) {
        throwIfWokenOrFailed();
        Consumer<byte[], byte[]> c = catchUp;
        if (c != null) {
            return pollCatchUp(c, timeout);
        }
        List<List<ConsumerRecord<byte[], byte[]>>> batches = new ArrayList<>();
        try {
            List<ConsumerRecord<byte[], byte[]>> first = handed.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (first != null) {
                batches.add(first);
                handed.drainTo(batches);
            }
        } catch (InterruptedException e) {
            throw new InterruptException(e); // as a consumer does: the trainer stops, not spins
        }
        throwIfWokenOrFailed();
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (List<ConsumerRecord<byte[], byte[]>> batch : batches) {
            for (ConsumerRecord<byte[], byte[]> r : batch) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (r.offset() >= from.getOrDefault(tp, 0L)) { // none: a partition new since, read from its start
                    records.add(r);
                    partitions.add(tp);
                }
            }
        }
        return records;
    }

    /** One poll of the catch-up: the job's records before the reader's position; closed once there. */
    private List<ConsumerRecord<byte[], byte[]>> pollCatchUp(Consumer<byte[], byte[]> c, Duration timeout) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(timeout)) {
                TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                if (r.offset() < attachedAt.get(tp) && ofThisJob(r)) {
                    records.add(r);
                }
            }
        } catch (WakeupException e) {
            wakeUp.set(false); // this wake-up is the one thrown
            throw e;
        }
        for (TopicPartition tp : c.assignment()) {
            if (c.position(tp) >= attachedAt.get(tp)) {
                c.pause(List.of(tp)); // read up to the reader's position: nothing more from it
            }
        }
        catchUpRecords += records.size();
        if (c.paused().size() == c.assignment().size()) {
            closeCatchUp();
            log.info(
                    "job {}: caught up with the trainer host's reader: {} records of the job read again in {} ms",
                    job,
                    catchUpRecords,
                    (System.nanoTime() - catchUpStartNanos) / 1_000_000);
        }
        return records;
    }

    /** The reader's rule, applied to the catch-up's records: the job's key, or none. */
    private boolean ofThisJob(ConsumerRecord<byte[], byte[]> r) {
        return r.key() == null || job.equals(new String(r.key(), StandardCharsets.UTF_8));
    }

    private void throwIfWokenOrFailed() {
        if (superseded) {
            throw new IllegalStateException(
                    "another trainer of job " + job + " started in this trainer host; this one stops");
        }
        if (readerFailed) {
            RuntimeException failure = reader.failure();
            throw failure != null ? failure : new IllegalStateException("the trainer host's reader stopped");
        }
        if (wakeUp.getAndSet(false)) {
            throw new WakeupException();
        }
    }

    @Override
    public Set<TopicPartition> assignment() {
        return Set.copyOf(partitions);
    }

    @Override
    public ConsumerGroupMetadata groupMetadata() {
        return new ConsumerGroupMetadata(config.groupId());
    }

    @Override
    public void wakeup() {
        wakeUp.set(true);
        handed.add(WAKE_UP);
        Consumer<byte[], byte[]> c = catchUp;
        if (c != null) {
            c.wakeup();
        }
    }

    @Override
    public void close(boolean killed) {
        reader.detach(job, this);
        closeCatchUp();
    }

    private void closeCatchUp() {
        Consumer<byte[], byte[]> c = catchUp;
        catchUp = null;
        if (c != null) {
            try {
                c.close(CloseOptions.timeout(Duration.ZERO));
            } catch (RuntimeException e) {
                log.debug("closing the catch-up consumer", e);
            }
        }
    }
}
