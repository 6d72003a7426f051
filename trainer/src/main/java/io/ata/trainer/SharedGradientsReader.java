package io.ata.trainer;

import io.ata.platform.kafka.KafkaErrors;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link TrainerHost}'s one reader of {@code gradients}: reads every partition once, outside any
 * group, and hands each record to the trainer of the job its key names ({@link HostedGradients}).
 * Without it, each trainer of a process reads every job's results to keep its own: a thousand jobs
 * read each result a thousand times.
 *
 * <p>It keeps no offsets: each job's group keeps its own, committed with the job's rounds. A job
 * attaches with the reader's position (everything read after it is handed over) and reads what it
 * needs from before it itself ({@link HostedGradients#start}). Attaching and handing over are
 * serialized, so a job misses no record between the two.
 *
 * <p>A record without a key goes to every job (each judges it by its {@code job} field, as a
 * trainer reading alone would); one whose key names no job of this host is dropped, as every
 * trainer reading alone would ignore it.
 */
final class SharedGradientsReader implements Runnable {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    private static final Duration POLL = Duration.ofMillis(100);
    /** How often the topic's partitions are looked up again: partitions added are read from their start. */
    static final long PARTITIONS_CHECK_MS = 30_000;
    /** How often a topic without partitions is looked up again. */
    static final long NO_TOPIC_CHECK_MS = 1_000;

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final Duration startupTimeout;
    private final Map<String, HostedGradients> jobs = new ConcurrentHashMap<>();
    /** The next offset to hand over per partition: where a job attaching now starts to be handed records. */
    private final Map<TopicPartition, Long> positions = new HashMap<>();

    private final CountDownLatch ready = new CountDownLatch(1);
    private final AtomicLong routed = new AtomicLong();
    private final AtomicLong unrouted = new AtomicLong();
    private volatile boolean stopping;
    private volatile RuntimeException failure;
    private long partitionsCheckedAtMs;

    /**
     * @param consumer       read_committed, outside any group; closed when the reader stops
     * @param startupTimeout how long {@link #attach} waits for the reader to know where the topic ends
     */
    SharedGradientsReader(Consumer<byte[], byte[]> consumer, String topic, Duration startupTimeout) {
        this.consumer = consumer;
        this.topic = topic;
        this.startupTimeout = startupTimeout;
    }

    /**
     * Hands {@code job}'s records to {@code feed} from now on, instead of to any feed before it, and
     * returns the position from which on it will: per partition, the offset of the next record read.
     * What was handed to {@code feed} before is dropped first, in the same step: no record is then
     * both handed over and before the position returned.
     *
     * @throws IllegalStateException if the reader failed, or does not know where the topic ends in time
     */
    Map<TopicPartition, Long> attach(String job, HostedGradients feed) {
        awaitReady();
        synchronized (positions) {
            if (failure != null) {
                throw new IllegalStateException("the trainer host's reader of " + topic + " stopped", failure);
            }
            feed.dropHanded();
            HostedGradients before = jobs.put(job, feed);
            if (before != null && before != feed) {
                before.superseded(); // a newer trainer of the job: the older one stops, as a fenced one would
            }
            return Map.copyOf(positions);
        }
    }

    /** Stops handing {@code job}'s records to {@code feed}, if it is still the one attached. */
    void detach(String job, HostedGradients feed) {
        synchronized (positions) {
            jobs.remove(job, feed);
        }
    }

    /** Records handed to a job, and records of no job here (dropped): for the host's meters. */
    long routed() {
        return routed.get();
    }

    long unrouted() {
        return unrouted.get();
    }

    /** The jobs attached now. */
    int jobs() {
        return jobs.size();
    }

    /** Closes the consumer of a reader never run. */
    void closeUnstarted() {
        consumer.close();
    }

    /** Stops the reader's thread (it closes its consumer). */
    void stop() {
        stopping = true;
        consumer.wakeup();
    }

    @Override
    public void run() {
        try {
            int failures = 0;
            while (!stopping) {
                try {
                    if (ready.getCount() > 0) {
                        startAtEnd();
                    } else {
                        checkPartitions();
                        if (consumer.assignment().isEmpty()) {
                            Thread.sleep(POLL.toMillis()); // no topic yet: nothing to poll
                        } else {
                            hand(consumer.poll(POLL));
                        }
                    }
                    failures = 0;
                } catch (WakeupException e) {
                    // stop(): the loop's condition ends it
                } catch (RuntimeException e) {
                    if (stopping) {
                        return;
                    }
                    if (KafkaErrors.isFatal(e)) {
                        fail(e);
                        return;
                    }
                    failures++;
                    long backoff = TrainingLoop.backoffMs(failures + 1); // the trainer's, one step further on
                    log.warn("trainer host: reading {} failed ({}); again in {} ms", topic, e.toString(), backoff);
                    Thread.sleep(backoff);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            fail(
                    failure != null
                            ? failure
                            : new IllegalStateException("the trainer host's reader of " + topic + " stopped"));
            try {
                consumer.close();
            } catch (RuntimeException e) {
                log.debug("closing the trainer host's gradients reader", e);
            }
        }
    }

    /** The failure that stopped the reader, for the jobs to stop on; null while it reads. */
    RuntimeException failure() {
        return failure;
    }

    /** The reader stopped (failed, or closed): every job attached now or later is told, and stops. */
    private void fail(RuntimeException e) {
        synchronized (positions) {
            if (failure == null) {
                if (!stopping) {
                    log.error("trainer host: reading {} failed for good; its trainers stop", topic, e);
                }
                failure = e;
            }
            ready.countDown(); // attach() waiting: it throws the failure
            jobs.values().forEach(HostedGradients::readerFailed);
        }
    }

    private void awaitReady() {
        try {
            if (!ready.await(startupTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the trainer host's reader of " + topic
                        + " did not find the topic's partitions within " + startupTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the trainer host's reader", e);
        }
        if (failure != null) {
            throw new IllegalStateException("the trainer host's reader of " + topic + " failed", failure);
        }
    }

    /**
     * At start: every partition, from its current end (a job reads what it needs from before it
     * itself). A topic not there yet is read from its start once it is, as a group member would.
     */
    private void startAtEnd() {
        List<TopicPartition> partitions = partitions();
        if (partitions.isEmpty()) {
            log.info(
                    "trainer host: topic {} has no partitions yet; its trainers read it from its start once it has",
                    topic);
        } else {
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            synchronized (positions) {
                for (TopicPartition tp : partitions) {
                    positions.put(tp, consumer.position(tp));
                }
            }
            log.info("trainer host: reading {} partitions of {} from their end", partitions.size(), topic);
        }
        partitionsCheckedAtMs = System.currentTimeMillis();
        ready.countDown();
    }

    /**
     * Every {@link #PARTITIONS_CHECK_MS} (every {@link #NO_TOPIC_CHECK_MS} while the topic has none):
     * partitions added to the topic are read from their start.
     */
    private void checkPartitions() {
        long now = System.currentTimeMillis();
        long every = consumer.assignment().isEmpty() ? NO_TOPIC_CHECK_MS : PARTITIONS_CHECK_MS;
        if (now - partitionsCheckedAtMs < every) {
            return;
        }
        partitionsCheckedAtMs = now;
        List<TopicPartition> all = partitions();
        Set<TopicPartition> known = consumer.assignment();
        List<TopicPartition> added =
                all.stream().filter(tp -> !known.contains(tp)).toList();
        if (added.isEmpty()) {
            return;
        }
        synchronized (positions) {
            consumer.assign(all);
            consumer.seekToBeginning(added);
            for (TopicPartition tp : added) {
                positions.put(tp, consumer.position(tp));
            }
        }
        log.info("trainer host: {} partitions of {} found, read from their start", added.size(), topic);
    }

    private List<TopicPartition> partitions() {
        return PartitionLookups.of(consumer, topic, startupTimeout);
    }

    /** Hands one poll's records to their jobs, in the order read, and moves the positions past them. */
    private void hand(Iterable<ConsumerRecord<byte[], byte[]>> records) {
        synchronized (positions) {
            Map<HostedGradients, List<ConsumerRecord<byte[], byte[]>>> byJob = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> record : records) {
                if (record.key() == null) {
                    jobs.values()
                            .forEach(feed -> byJob.computeIfAbsent(feed, f -> new ArrayList<>())
                                    .add(record));
                    routed.incrementAndGet();
                    continue;
                }
                HostedGradients feed = jobs.get(new String(record.key(), StandardCharsets.UTF_8));
                if (feed == null) {
                    unrouted.incrementAndGet();
                } else {
                    byJob.computeIfAbsent(feed, f -> new ArrayList<>()).add(record);
                    routed.incrementAndGet();
                }
            }
            byJob.forEach(HostedGradients::handed);
            for (TopicPartition tp : consumer.assignment()) {
                positions.put(tp, consumer.position(tp));
            }
        }
    }
}
