package io.ata.trainer;

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the watch of the open round does for one job, whoever reads the job's partition of
 * {@code allocations} (a watch of its own, {@link AssignmentWatch}, or a trainer host's shared
 * reader, {@link SharedAllocationsReader}):
 *
 * <ul>
 *   <li>takes the job's assignments into {@link RoundAssignments}, and dead-letters what it cannot
 *       read;</li>
 *   <li>an overdue assignment: its missing tasks go to the broker as an OVERDUE round event, which
 *       sends copies to other workers (backup tasks);</li>
 *   <li>a stalled round: every missing task is reported the same way, the round's OPENED event is
 *       sent again (the broker sends its assignments again) where no assignment or no result of it
 *       is known (after a restart whose round's results are gone from the topics, or a broker that
 *       lost it) or it stalled before, and a dead letter says what stalled and what was done.</li>
 * </ul>
 *
 * <p>Its producer is not the trainer's transactional one, on purpose: OVERDUE and a repeated
 * OPENED are requests, not part of the round's exactly-once state. Sent twice (a restart), or
 * after the round closed, they are ignored by the broker; lost, the next re-drive sends them again.
 */
final class JobWatch {
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);
    private static final DeadLetters DEAD_LETTERS = new DeadLetters(DeadLetters.TRAINER);

    private final String job;
    private final int batch;
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
    private final Producer<String, byte[]> producer;

    /** @param producer the producer of OVERDUE events and dead letters; not closed here */
    JobWatch(
            TrainerConfig config,
            SchemaRegistryClient registry,
            Producer<String, byte[]> producer,
            RoundAssignments assignments,
            TrainerMetrics metrics) {
        this.job = config.job();
        this.batch = config.trainingJob().batch();
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
        this.producer = producer;
    }

    String job() {
        return job;
    }

    /** The job's view of the open round, which this watch fills in. */
    RoundAssignments assignments() {
        return assignments;
    }

    /**
     * Takes a record of the job's partition of {@code allocations}, which has {@code partitions}
     * partitions: the job's assignments into the round's view; another job's is skipped undecoded
     * (its trainer reads it). One nobody can read is dead-lettered by the trainer its key names;
     * one without a key of this partition by every trainer that reads it.
     */
    void read(ConsumerRecord<byte[], byte[]> r, int partitions) {
        boolean ours = Arrays.equals(r.key(), jobKey);
        if (!ours && isKeyOfItsPartition(r, partitions)) {
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

    /** Whether the record's key is a job whose records its partition holds (that job's trainer's to judge). */
    static boolean isKeyOfItsPartition(ConsumerRecord<byte[], byte[]> r, int partitions) {
        return r.key() != null
                && partitions > 0
                && Topics.partitionOfJob(new String(r.key(), StandardCharsets.UTF_8), partitions) == r.partition();
    }

    /** Acts on the deadlines due now: backups of overdue tasks, a stalled round re-driven. */
    void actOnDeadlines() {
        for (RoundAssignments.Overdue overdue : assignments.due(clock.millis())) {
            askForBackups(
                    assignments.round(), overdue.worker(), overdue.missing(), overdue.quietMs(), overdue.sinceOpenMs());
        }
        assignments.stall(clock.millis()).ifPresent(this::redrive);
    }

    /** Milliseconds until the next deadline known now (at least 0). */
    long untilNextDueMs() {
        return assignments.untilNextDueMs(clock.millis());
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
}
