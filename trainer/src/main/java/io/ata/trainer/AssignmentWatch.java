package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A trainer's watch over the open round, on a thread of its own, when it runs alone (not in a
 * {@link TrainerHost}): reads the job's assignments from the job's partition of the
 * {@code allocations} topic, where the broker writes every assignment of {@code tasks} again keyed
 * by job (read_committed, no group: it only watches), and acts on them and on the round's
 * deadlines ({@link JobWatch}); and answers a catch-up the training loop asks for: it reads the
 * topic to the end offsets it finds after the time asked, then says so, so that the loop knows an
 * assignment it has not seen was never made.
 *
 * <p>An error here is logged and the watch goes on after a pause: without it, no round is
 * re-driven; meanwhile results are not held for it ({@link RoundAssignments#tasksReadable}).
 */
final class AssignmentWatch implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);
    /**
     * The longest poll. A poll returns as soon as assignments arrive and lasts no longer than until
     * the next deadline it knows of; this bounds how late it notices a deadline it learnt of from
     * the training loop meanwhile (an assignment read before its round opened here). Polls of 10 ms
     * cost 100 trainers in a process 10,000 wake-ups a second for nothing (a {@link TrainerHost}
     * watches all its jobs on one thread).
     */
    private static final long MAX_POLL_MS = 50;
    /** The poll while catching up for the loop: it waits on this. */
    private static final long CATCH_UP_POLL_MS = 5;
    /** The wait while the allocations topic has no partitions yet. */
    private static final long NO_TOPIC_WAIT_MS = 10;
    /** How often the partitions of {@code allocations} are looked up again (an operator may add some). */
    private static final long PARTITION_REFRESH_MS = 5_000;
    /** The pause after an error, before the watch goes on. */
    private static final long ERROR_PAUSE_MS = 1_000;

    private final String job;
    private final String allocationsTopic;
    private final JobWatch watch;
    private final RoundAssignments assignments;
    private final Clock clock;
    private final long readFromMs;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<String, byte[]> producer;

    private volatile boolean running = true;
    private long partitionsCheckedAtMs;
    private int knownPartitions;
    /** The catch-up under way: the time it is for, and the end offsets to reach. */
    private long catchUpAsOfNanos;

    private Map<TopicPartition, Long> catchUpEnds;

    /**
     * @param readFromMs where to start reading {@code allocations} (epoch ms): a little before the open
     *     round opened, so that its assignments are read too
     */
    AssignmentWatch(
            TrainerConfig config,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            RoundAssignments assignments,
            TrainerMetrics metrics,
            long readFromMs) {
        this.job = config.job();
        this.allocationsTopic = config.topics().allocations().name();
        this.assignments = assignments;
        this.clock = config.clock();
        this.readFromMs = readFromMs;
        this.consumer = clients.consumer(TrainerClients.tasksWatcher(config));
        this.producer = clients.producer(TrainerClients.overdueProducer(config));
        this.watch = new JobWatch(config, registry, producer, assignments, metrics);
    }

    @Override
    public void run() {
        try {
            while (running) {
                try {
                    watchOnce();
                } catch (WakeupException | InterruptException e) {
                    throw e;
                } catch (RuntimeException e) {
                    // results must not wait for a watch that cannot read: unchecked until it reads again
                    assignments.tasksReadable(false);
                    if (e instanceof AuthorizationException) {
                        log.error(
                                "job {}: the trainer may not read {} ({}): results are not checked against their"
                                        + " assignments and no round is re-driven; grant it READ on the topic",
                                job,
                                allocationsTopic,
                                e.toString());
                    } else {
                        log.warn(
                                "job {}: the watch of the open round failed; going on in {} ms",
                                job,
                                ERROR_PAUSE_MS,
                                e);
                    }
                    catchUpEnds = null;
                    Thread.sleep(ERROR_PAUSE_MS);
                }
            }
        } catch (WakeupException | InterruptException e) {
            // stop()
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            consumer.close();
            producer.close(Duration.ofSeconds(5));
        }
    }

    private void watchOnce() throws InterruptedException {
        refreshPartitions();
        if (consumer.assignment().isEmpty()) {
            assignments.tasksReadable(false); // no allocations topic: nothing to check results against
            Thread.sleep(NO_TOPIC_WAIT_MS);
            return;
        }
        assignments.tasksReadable(true);
        startCatchUpIfWanted();
        long now = clock.millis();
        long wait = catchUpEnds != null
                ? CATCH_UP_POLL_MS
                : Math.max(1, Math.min(MAX_POLL_MS, assignments.untilNextDueMs(now)));
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(wait))) {
            watch.read(r, knownPartitions);
        }
        finishCatchUpIfDone();
        watch.actOnDeadlines();
    }

    /** Asks the end offsets now, if the loop waits for a catch-up: reading up to them answers it. */
    private void startCatchUpIfWanted() {
        if (catchUpEnds != null) {
            return;
        }
        Optional<Long> wanted = assignments.catchUpWanted();
        if (wanted.isEmpty()) {
            return;
        }
        catchUpAsOfNanos = System.nanoTime(); // after the time wanted: the ends asked now cover it
        catchUpEnds = consumer.endOffsets(consumer.assignment());
    }

    private void finishCatchUpIfDone() {
        if (catchUpEnds == null) {
            return;
        }
        for (Map.Entry<TopicPartition, Long> end : catchUpEnds.entrySet()) {
            if (consumer.assignment().contains(end.getKey()) && consumer.position(end.getKey()) < end.getValue()) {
                return;
            }
        }
        assignments.caughtUp(catchUpAsOfNanos);
        catchUpEnds = null;
    }

    /**
     * Reads the job's partition of {@code allocations}: first from {@code readFromMs}; after the
     * topic grew (the job's partition moved with the count), the new one from a little before the
     * growth was noticed.
     */
    private void refreshPartitions() {
        long now = clock.millis();
        long every = knownPartitions == 0 ? 100 : PARTITION_REFRESH_MS;
        if (now - partitionsCheckedAtMs < every) {
            return;
        }
        partitionsCheckedAtMs = now;
        List<PartitionInfo> infos = consumer.partitionsFor(allocationsTopic);
        if (infos == null || infos.isEmpty() || infos.size() == knownPartitions) {
            return;
        }
        TopicPartition mine = new TopicPartition(allocationsTopic, Topics.partitionOfJob(job, infos.size()));
        long since = knownPartitions == 0 ? readFromMs : now - 2 * PARTITION_REFRESH_MS;
        knownPartitions = infos.size();
        catchUpEnds = null; // asked of the old partition: ask again
        if (consumer.assignment().equals(Set.of(mine))) {
            return;
        }
        consumer.assign(List.of(mine));
        // A partition with nothing since then is read from its end as it was BEFORE the look-up:
        // seekToEnd resolves at the next poll, and an assignment committed meanwhile (the round's
        // OPENED event went out as the watch started) was skipped: the round stalled with none known.
        Long endBefore = consumer.endOffsets(List.of(mine)).get(mine);
        OffsetAndTimestamp at = consumer.offsetsForTimes(Map.of(mine, since)).get(mine);
        consumer.seek(mine, at != null ? at.offset() : endBefore);
    }

    /** Stops the watch from another thread; {@link #run()} returns soon after. */
    void stop() {
        running = false;
        consumer.wakeup();
    }
}
