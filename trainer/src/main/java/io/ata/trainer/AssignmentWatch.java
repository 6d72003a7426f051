package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trainer's watch over the open round, on a thread of its own: reads the job's assignments
 * from the job's partition of the {@code allocations} topic, where the broker writes every
 * assignment of {@code tasks} again keyed by job (read_committed, no group: it only watches), into
 * {@link RoundAssignments}, which then says who may deliver each task and when an assignment or the
 * round needs driving on; and acts on it:
 *
 * <ul>
 *   <li>an overdue assignment: its missing tasks go to the broker as an OVERDUE round event, which
 *       sends copies to other workers (backup tasks);</li>
 *   <li>a stalled round: every missing task is reported the same way, the round's OPENED event is
 *       sent again (the broker sends its assignments again) where no assignment or no result of it
 *       is known (after a restart whose round's results are gone from the topics, or a broker that
 *       lost it) or it stalled before, and a dead letter says what stalled and what was done;</li>
 *   <li>a catch-up the training loop asks for: it reads the topic to the end offsets it finds after
 *       the time asked, then says so, so that the loop knows an assignment it has not seen was
 *       never made.</li>
 * </ul>
 *
 * <p>Its producer is not the trainer's transactional one, on purpose: OVERDUE and a repeated
 * OPENED are requests, not part of the round's exactly-once state. Sent twice (a restart), or
 * after the round closed, they are ignored by the broker; lost, the next re-drive sends them again.
 * An error here is logged and the watch goes on after a pause: without it, no round is re-driven;
 * meanwhile results are not held for it ({@link RoundAssignments#tasksReadable}).
 */
final class AssignmentWatch implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);
    /**
     * The longest poll. A poll returns as soon as assignments arrive and lasts no longer than until
     * the next deadline it knows of; this bounds how late it notices a deadline it learnt of from
     * the training loop meanwhile (an assignment read before its round opened here). Polls of 10 ms
     * cost a 100-job trainer host 10,000 wake-ups a second for nothing.
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
    /** At most this long before the trainer started is read back on {@code allocations}. */
    static final long MAX_LOOK_BACK_MS = 10 * 60_000;

    private static final DeadLetters DEAD_LETTERS = new DeadLetters(DeadLetters.TRAINER);

    private final String job;
    private final int batch;
    private final String allocationsTopic;
    /** The job's name as the broker keys its records: records of other jobs are skipped undecoded. */
    private final byte[] jobKey;

    private final String roundsTopic;
    private final String deadLettersTopic;
    private final RecordDecoder<TaskAssignment> decoder;
    private final Serializer<RoundEvent> roundSerializer;
    private final Serializer<DeadLetter> letterSerializer;
    private final RoundAssignments assignments;
    private final TrainerMetrics metrics;
    private final Clock clock;
    private final long readFromMs;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<String, byte[]> producer;
    /** Whether {@link #producer} is the watch's own, to close when it stops (not a host's). */
    private final boolean ownsProducer;

    private volatile boolean running = true;
    private long partitionsCheckedAtMs;
    private int knownPartitions;
    /** The catch-up under way: the time it is for, and the end offsets to reach. */
    private long catchUpAsOfNanos;

    private Map<TopicPartition, Long> catchUpEnds;

    /**
     * @param overdueProducer the producer of OVERDUE events a trainer host shares, not closed here;
     *     null: one of the watch's own
     * @param readFromMs where to start reading {@code allocations} (epoch ms): a little before the open
     *     round opened, so that its assignments are read too; at most {@link #MAX_LOOK_BACK_MS} ago
     */
    AssignmentWatch(
            TrainerConfig config,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            Producer<String, byte[]> overdueProducer,
            RoundAssignments assignments,
            TrainerMetrics metrics,
            long readFromMs) {
        this.job = config.job();
        this.batch = config.trainingJob().batch();
        this.allocationsTopic = config.topics().allocations().name();
        this.jobKey = job.getBytes(StandardCharsets.UTF_8);
        this.roundsTopic = config.topics().rounds().name();
        this.deadLettersTopic = config.topics().deadLetters().name();
        this.decoder = new RecordDecoder<>(
                config.topics().allocations().valueSerde(registry).deserializer(), "task assignment");
        this.roundSerializer = config.topics().rounds().valueSerde(registry).serializer();
        this.letterSerializer =
                config.topics().deadLetters().valueSerde(registry).serializer();
        this.assignments = assignments;
        this.metrics = metrics;
        this.clock = config.clock();
        this.readFromMs = Math.max(readFromMs, clock.millis() - MAX_LOOK_BACK_MS);
        this.consumer = clients.consumer(TrainerClients.tasksWatcher(config));
        this.ownsProducer = overdueProducer == null;
        this.producer = ownsProducer ? clients.producer(TrainerClients.overdueProducer(config)) : overdueProducer;
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
            if (ownsProducer) {
                producer.close(Duration.ofSeconds(5));
            }
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
            read(r);
        }
        finishCatchUpIfDone();
        for (RoundAssignments.Overdue overdue : assignments.due(clock.millis())) {
            askForBackups(
                    assignments.round(), overdue.worker(), overdue.missing(), overdue.quietMs(), overdue.sinceOpenMs());
        }
        assignments.stall(clock.millis()).ifPresent(this::redrive);
    }

    /**
     * Takes a record of the job's partition: the job's assignments into the round's view; another
     * job's is skipped undecoded (its trainer reads it). One nobody can read is dead-lettered by the
     * trainer its key names; one without a key of this partition by every trainer that reads it.
     */
    private void read(ConsumerRecord<byte[], byte[]> r) {
        boolean ours = Arrays.equals(r.key(), jobKey);
        if (!ours && isKeyOfThisPartition(r)) {
            return; // another job's
        }
        Decoded<TaskAssignment> decoded = r.value() == null ? null : decoder.decode(r.topic(), r.value());
        String problem;
        if (decoded instanceof Decoded.Valid<TaskAssignment> valid) {
            if (ours) {
                assignments.assigned(valid.record(), clock.millis());
                return;
            }
            problem = "an assignment of job " + valid.record().getJob() + " under a key of no job of partition "
                    + r.partition();
        } else {
            problem = decoded instanceof Decoded.Undecodable<TaskAssignment> bad
                    ? bad.reason()
                    : "an allocations record without a value";
        }
        DeadLetter letter = DEAD_LETTERS.of(r, problem, null, clock.millis());
        send(letter);
        metrics.deadLettered();
        log.warn("job {}: dead-lettered {}-{}@{}: {}", job, r.topic(), r.partition(), r.offset(), problem);
    }

    /** Whether the record's key is a job whose records this partition holds (its trainer's to judge). */
    private boolean isKeyOfThisPartition(ConsumerRecord<byte[], byte[]> r) {
        return r.key() != null
                && knownPartitions > 0
                && Topics.partitionOfJob(new String(r.key(), StandardCharsets.UTF_8), knownPartitions) == r.partition();
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

    /** An OVERDUE event for {@code missing} tasks of {@code worker}'s assignment of {@code round}. */
    private void askForBackups(long round, String worker, List<String> missing, double quietMs, double sinceOpenMs) {
        List<RoundTiming> timings = new ArrayList<>();
        for (String taskId : missing) {
            timings.add(RoundTiming.newBuilder()
                    .setWorkerId(worker)
                    .setTaskId(taskId)
                    .setComputeMs(Math.max(0, quietMs))
                    .setStatus(TimingStatus.CANCELLED)
                    .setArrivalMs(Math.max(0, sinceOpenMs))
                    .build());
        }
        send(RoundEvent.newBuilder()
                .setJob(job)
                .setRound(round)
                .setType(RoundEventType.OVERDUE)
                .setModelVersion(ModelVersions.computedOnBy(round))
                .setBatch(0)
                .setTimings(timings)
                .setTimestampMs(clock.millis())
                .build());
        metrics.backupsRequested();
        log.info(
                "job {} round {}: {} task(s) of {} overdue ({} ms without a result, delivery margin {} ms),"
                        + " asking for backups",
                job,
                round,
                missing.size(),
                worker,
                Math.round(quietMs),
                Math.round(assignments.marginMs()));
    }

    /** A stalled round: its missing tasks backed up, its OPENED sent again if nothing of it is known, a letter. */
    private void redrive(RoundAssignments.Stall stall) {
        List<String> done = new ArrayList<>();
        stall.missing()
                .forEach((worker, missing) ->
                        askForBackups(stall.round(), worker, missing, stall.openMs(), stall.openMs()));
        if (!stall.missing().isEmpty()) {
            done.add("asked for backups of "
                    + stall.missing().values().stream().mapToInt(List::size).sum() + " missing task(s) of "
                    + stall.missing().keySet().stream().sorted().collect(Collectors.joining(", ")));
        }
        if (stall.reopen()) {
            send(RoundEvent.newBuilder()
                    .setJob(job)
                    .setRound(stall.round())
                    .setType(RoundEventType.OPENED)
                    .setModelVersion(ModelVersions.computedOnBy(stall.round()))
                    .setBatch(batch)
                    .setTimestampMs(clock.millis())
                    .build());
            metrics.roundReopened();
            done.add(
                    stall.noAssignments()
                            ? "no assignment of it was seen: sent its OPENED event again"
                            : "sent its OPENED event again");
        }
        String reason = "job " + job + " round " + stall.round() + " stalled: open for " + Math.round(stall.openMs())
                + " ms (stall bound " + Math.round(assignments.stallBoundMs()) + " ms, median round "
                + Math.round(assignments.medianRoundMs()) + " ms), " + stall.assignments()
                + " assignment(s) known; re-driven (" + stall.times() + "): " + String.join("; ", done);
        DeadLetter letter = DEAD_LETTERS.of(
                roundsTopic, -1, -1, job.getBytes(StandardCharsets.UTF_8), null, reason, null, clock.millis());
        send(letter);
        metrics.roundStalled();
        log.warn(reason);
    }

    private void send(DeadLetter letter) {
        producer.send(new ProducerRecord<>(
                deadLettersTopic, DeadLetters.keyOf(letter), letterSerializer.serialize(deadLettersTopic, letter)));
    }

    private void send(RoundEvent event) {
        producer.send(new ProducerRecord<>(roundsTopic, job, roundSerializer.serialize(roundsTopic, event)));
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
