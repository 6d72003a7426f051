package io.ata.workeragent;

import io.ata.schemas.JobNames;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.schemas.registry.SchemaRegistryException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the models of jobs a {@link ModelCache} forgot again from their partition of the compacted
 * {@code model} topic, several jobs of one partition in one read: with a consumer of its own (no
 * group, read_committed), from the partition's beginning to where it ends when the read starts, so
 * that the cache's own consumer goes on with every live job meanwhile.
 *
 * <p>Only the jobs' records are decoded (their key is the job, or {@code job#i} for a slice: a job
 * name has no {@code #}); each job's versions are put back together with an assembler of its own
 * and handed over whole, in the topic's order. Nothing read here is dead-lettered: the agents that read these records live did
 * that, and a record refused then is skipped now, with a log line. A Schema Registry that does not
 * answer is waited out (the record read again every {@link #OUTAGE_RETRY}), for at most the outage
 * patience: an outage is not the record's fault, but the reads wait one after another on one
 * thread, so once the registry has been down that long every read that needs it fails at once (the
 * cache then leaves its jobs alone for a while) until a record decodes again.
 */
final class ModelRecall {
    private static final Logger log = LoggerFactory.getLogger(ModelRecall.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    /** How long a read waits before it asks a Schema Registry that did not answer again. */
    static final Duration OUTAGE_RETRY = Duration.ofSeconds(1);
    /** How long the reads wait out a Schema Registry that does not answer, together. */
    static final Duration DEFAULT_OUTAGE_PATIENCE = Duration.ofSeconds(30);

    private final Supplier<Consumer<byte[], byte[]>> readers;
    private final String topic;
    private final RecordDecoder<ModelVersion> decoder;
    private final Duration timeout;
    private final Duration outagePatience;
    /** When the Schema Registry stopped answering, as the reads found (nanoTime), or -1: it answers. */
    private long registryDownSince = -1;
    /** Whether the last record looked at was decoded without a registry outage: only that ends one. */
    private boolean registryAnswered;
    /**
     * When the last read gave up on the registry (nanoTime), or -1: it did not. An outage carries
     * over only to a read that starts within the patience of that, so a blip long after is waited
     * out again (the reads' thread only, as the two fields above).
     */
    private long gaveUpAt = -1;

    /**
     * @param readers makes a consumer without group, configured read_committed, for one read (closed
     *     after it)
     * @param timeout how long one read may take at most (a partition read from its beginning)
     * @param outagePatience how long the reads wait out a Schema Registry that does not answer
     */
    ModelRecall(
            Supplier<Consumer<byte[], byte[]>> readers,
            String topic,
            RecordDecoder<ModelVersion> decoder,
            Duration timeout,
            Duration outagePatience) {
        this.readers = Objects.requireNonNull(readers, "readers");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.outagePatience = Objects.requireNonNull(outagePatience, "outagePatience");
    }

    /** Where a read hands each whole version of the job it finds. */
    @FunctionalInterface
    interface Found {
        /**
         * @param at where the version's record was read (a sliced version's last slice): the same
         *     place as the live readers', so an early start on the recalled job can be confirmed
         */
        void version(ModelVersion whole, ModelPosition at);
    }

    /**
     * Reads the records of {@code jobs} on {@code partition}, from its beginning to its end as of
     * now, handing every whole version to {@code found}; how many versions it found. Stops early,
     * with what it found so far, if the thread is interrupted or the read takes longer than the
     * timeout.
     *
     * @throws SchemaRegistryException if the Schema Registry has not answered for the outage
     *     patience (over this read and those before it)
     */
    int read(Set<String> jobs, int partition, Found found) {
        TopicPartition tp = new TopicPartition(topic, partition);
        Map<String, ModelAssembler> assemblers = new HashMap<>(); // slices of several jobs interleave
        String which = named(jobs); // for the log lines
        int versions = 0;
        try (Consumer<byte[], byte[]> consumer = readers.get()) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp); // read_committed: the last stable offset
            long deadline = System.nanoTime() + timeout.toNanos();
            boolean outage = false;
            boolean carriedOver = gaveUpAt >= 0 && System.nanoTime() - gaveUpAt < outagePatience.toNanos();
            gaveUpAt = -1;
            if (!carriedOver) {
                registryDownSince = -1;
            }
            while (consumer.position(tp) < end) {
                if (Thread.currentThread().isInterrupted()) {
                    return versions;
                }
                if (System.nanoTime() > deadline) {
                    log.warn(
                            "reading the model of {} again from {} took over {}: stopped at offset {} of {}",
                            which,
                            tp,
                            timeout,
                            consumer.position(tp),
                            end);
                    return versions;
                }
                for (ConsumerRecord<byte[], byte[]> record :
                        consumer.poll(POLL_TIMEOUT).records(tp)) {
                    ModelVersion whole;
                    try {
                        whole = wholeVersion(jobs, record, assemblers);
                    } catch (SchemaRegistryException e) {
                        // not the record's fault: read it again once the registry answers
                        long now = System.nanoTime();
                        if (registryDownSince < 0) {
                            registryDownSince = now;
                        } else if (now - registryDownSince >= outagePatience.toNanos()) {
                            gaveUpAt = now;
                            throw e; // down for long: the reads queued behind this one are not held up
                        }
                        outage = waitOutOutage(which, record, e, outage, deadline);
                        consumer.seek(tp, record.offset());
                        break;
                    }
                    outage = false;
                    if (registryAnswered) {
                        registryDownSince = -1; // not for another job's record, never decoded
                    }
                    if (whole != null) {
                        found.version(whole, new ModelPosition(record.partition(), record.offset()));
                        versions++;
                    }
                }
            }
        }
        return versions;
    }

    /**
     * Waits {@link #OUTAGE_RETRY} (less if the read's deadline is nearer) before {@code record} is
     * read again; logs the outage at its first failure only. Whether an outage is under way (true).
     */
    private static boolean waitOutOutage(
            String which,
            ConsumerRecord<byte[], byte[]> record,
            SchemaRegistryException e,
            boolean known,
            long deadline) {
        if (!known) {
            log.warn(
                    "reading the model of {} again: the Schema Registry did not answer for {}-{}@{} ({});"
                            + " trying again every {}",
                    which,
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    e.getMessage(),
                    OUTAGE_RETRY);
        }
        long pause = Math.min(OUTAGE_RETRY.toNanos(), Math.max(0, deadline - System.nanoTime()));
        try {
            TimeUnit.NANOSECONDS.sleep(pause);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt(); // the read loop sees it and stops
        }
        return true;
    }

    /** {@code jobs} for a log line: "job a", "jobs [a, b]", or the first five and how many more. */
    private static String named(Set<String> jobs) {
        if (jobs.size() == 1) {
            return "job " + jobs.iterator().next();
        }
        List<String> first = new TreeSet<>(jobs).stream().limit(5).toList();
        return "jobs " + first + (jobs.size() > first.size() ? " and " + (jobs.size() - first.size()) + " more" : "");
    }

    /** The whole version {@code record} completes, if it is one of {@code jobs}' and usable; else null. */
    private ModelVersion wholeVersion(
            Set<String> jobs, ConsumerRecord<byte[], byte[]> record, Map<String, ModelAssembler> assemblers) {
        registryAnswered = false;
        if (record.key() == null || record.value() == null) {
            return null;
        }
        String key = new String(record.key(), StandardCharsets.UTF_8);
        int slice = key.indexOf(JobNames.SLICE_SEPARATOR);
        String job = slice < 0 ? key : key.substring(0, slice);
        if (!jobs.contains(job)) {
            return null; // another job's: not even decoded
        }
        ModelAssembler assembler = assemblers.computeIfAbsent(
                job, j -> new ModelAssembler(ModelCache.MAX_MODEL_BYTES, ModelCache.MAX_INCOMPLETE));
        Decoded<ModelVersion> decoded = decoder.decode(record.topic(), record.value());
        registryAnswered = true; // (or was not needed): whatever is wrong now is the record's
        if (!(decoded instanceof Decoded.Valid<ModelVersion> valid)
                || !valid.record().getJob().equals(job)) {
            return null;
        }
        ModelVersion model = valid.record();
        String problem = ModelCache.problem(key, model);
        if (problem == null && assembler.offer(model) instanceof ModelAssembler.Whole whole) {
            problem = ModelRules.wholeProblem(whole.model());
            if (problem == null) {
                return whole.model();
            }
        }
        if (problem != null) {
            log.info(
                    "reading job {}'s model again: skipping {}-{}@{}: {}",
                    job,
                    topic,
                    record.partition(),
                    record.offset(),
                    problem);
        }
        return null;
    }
}
