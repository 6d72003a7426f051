package io.ata.workeragent;

import io.ata.platform.Threads;
import io.ata.schemas.JobNames;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.schemas.registry.SchemaRegistryException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The newest {@link ModelVersion} of every job, followed from the compacted {@code model} topic.
 *
 * <p>Every agent needs every job's model, whatever task partitions it owns, so the cache reads the
 * topic with its own consumer that {@code assign}s itself all partitions from the beginning (no
 * consumer group, nothing committed) with {@code isolation.level=read_committed}: a model version
 * becomes visible together with the round it opens, never before. A background thread polls it;
 * the agent's task thread only reads the map.
 *
 * <p>Per job the versions only grow: the trainer writes them in order to the job's partition,
 * so a version below the newest one kept is a forged or foreign record. What goes to the
 * {@link DeadLetterSink} with the reason, and is never applied (the cache goes on with the next
 * record): a record that does not decode; a tombstone (nothing in the system deletes a model; an
 * accepted tombstone would let anyone make a job's agents forget it); a version out of range
 * (blank job, a version below 0 or above {@link ModelRules#MAX_VERSION}, a chunk outside its count,
 * key not {@code Chunks.key(job, chunk, chunks)}); a version below the job's newest; and a whole
 * version that breaks {@link ModelRules#wholeProblem} (parameters not finite, a network
 * description that does not match its parameters). A version far ahead of the newest is not
 * refused for that: a reader that starts at the topic's beginning legitimately jumps over the
 * versions compaction removed; the absolute bound keeps out the versions no round can reach.
 *
 * <p>A model version larger than one Kafka record comes as slices (see {@link Chunks}), all in
 * one transaction; a {@link ModelAssembler} puts them back together, with bounded memory (versions
 * of at most {@value #MAX_MODEL_BYTES} bytes, at most {@value #MAX_INCOMPLETE} incomplete at
 * once), and the version becomes visible, whole, only once its last slice is read. A slice the
 * assembler refuses (a duplicate, a count that contradicts its siblings', too large) is
 * dead-lettered with the reason, and its version is dropped.
 *
 * <p>A job whose model has been quiet (nothing of it stored) for the {@linkplain #setRetention
 * retention} is forgotten: its model is dropped from memory, so that an agent serving a sweep of
 * many short jobs does not keep every one's parameters for good. If an assignment of it comes
 * later ({@link #recall}), its partition of the topic is read again from the beginning (the
 * compacted topic keeps each job's newest version) by a {@link ModelRecall}, with a consumer of its
 * own on a thread of its own, one partition at a time (every job recalled for it in one read): the
 * cache's consumer goes on with the live jobs.
 * A cache made without a way to read again forgets nothing.
 *
 * <p>The partitions are looked up once, when the topic first exists; partitions added later are
 * not followed (model topics are not expected to grow).
 */
public final class ModelCache implements ModelSource, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ModelCache.class);
    private static final DeadLetters DEAD_LETTERS = new DeadLetters(DeadLetters.WORKER_AGENT);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final long WHOLE_MILLI = 1_000_000L;
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);
    /** How long the topic's metadata may keep timing out, at a start, before it is worth a warning. */
    private static final Duration METADATA_PATIENCE = Duration.ofSeconds(30);
    /** The largest model version assembled from slices: 1 GiB, 268 million float32 parameters. */
    static final long MAX_MODEL_BYTES = 1L << 30;
    /** Chunked versions incomplete at once (e.g. of as many jobs publishing at the same time). */
    static final int MAX_INCOMPLETE = 8;
    /**
     * How long a job's model is kept while nothing of it is read: a day, as long as the broker keeps
     * a job without a round event (a live job's model moves every round).
     */
    public static final Duration DEFAULT_RETENTION = Duration.ofDays(1);
    /** How often the cache looks for jobs to forget, at most. */
    private static final Duration FORGET_CHECK = Duration.ofMinutes(1);
    /** How long one read again of a partition (for every job waiting on it) may take. */
    private static final Duration RECALL_TIMEOUT = Duration.ofMinutes(2);
    /**
     * After a read again that found nothing of its job (or failed), how long before the job is read
     * again: without it, every assignment of a job whose model is gone from the topic would start
     * another full read of its partition.
     */
    static final Duration RECALL_COOL_DOWN = Duration.ofMinutes(1);

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final RecordDecoder<ModelVersion> decoder;
    private final DeadLetterSink deadLetters;
    private final Clock clock;
    private final ModelAssembler assembler;

    /** Guarded by {@code this}; waiters in {@link #await} are woken on every change. */
    private final Map<String, ModelVersion> models = new HashMap<>();
    /**
     * Where each job's last {@value #PLACES_KEPT} versions were read, newest first (guarded by
     * {@code this}).
     */
    private final Map<String, ArrayDeque<Placed>> placesOf = new HashMap<>();

    /**
     * How many of a job's versions the cache knows the place of: a task started early on one is
     * confirmed after it ends, and a straggler's task may end after a round or two more closed.
     */
    static final int PLACES_KEPT = 4;

    private record Placed(long version, ModelPosition position) {}

    /** Per job, the newest version whose slices are being put together (guarded by {@code this}). */
    private final Map<String, Long> arriving = new HashMap<>();

    /** Per job, when a slice or version of its model was last stored (System.nanoTime(); guarded by {@code this}). */
    private final Map<String, Long> lastHeard = new HashMap<>();

    /** Per job heard of, the partition its model was last read from (guarded by {@code this}). */
    private final Map<String, Integer> partitionOf = new HashMap<>();
    /**
     * Jobs forgotten, each with the partition its model was on, kept for good: a name and a number
     * a job, and a job whose trainer comes back whenever must be read again (guarded by {@code this}).
     */
    private final Map<String, Integer> forgotten = new HashMap<>();
    /** Forgotten jobs being read again, or waiting for it (guarded by {@code this}). */
    private final Set<String> recalling = new HashSet<>();
    /**
     * Per partition, the recalled jobs its next read again serves (guarded by {@code this}): one read
     * of a partition for every job waiting on it, as a sweep of jobs comes back.
     */
    private final Map<Integer, Set<String>> waiting = new HashMap<>();
    /** Forgotten jobs whose last read again found nothing, with when it ended (ticker; guarded by {@code this}). */
    private final Map<String, Long> missed = new HashMap<>();
    /** Reads a forgotten job again; null: this cache forgets nothing. */
    private final ModelRecall recall;
    /** Runs the reads again, one at a time; made at the first (guarded by {@code this}). */
    private ExecutorService recalls;
    /** How many partitions the topic has (0 until the cache follows it). */
    private volatile int partitionCount;

    private volatile Duration retention = DEFAULT_RETENTION;
    /** The clock of the jobs' quiet times (System.nanoTime(); another in tests). */
    private final LongSupplier ticker;
    /** When the cache last looked for jobs to forget (ticker). */
    private long lastForgetCheck;

    private volatile boolean closed;
    private boolean assigned;
    /** When fetching the topic's metadata first timed out (System.nanoTime()), while not assigned; 0 if not. */
    private long metadataTimingOutSince;
    /**
     * From the assignment to the first poll that finds nothing new: the records read then were
     * there before this agent, and were dead-lettered by the agents that read them live.
     */
    private boolean catchingUp;
    /** Whether the topic was read to where it stood when the cache started (guarded by {@code this}). */
    private boolean caughtUp;

    private Thread thread;

    /** Told of every version kept as its job's newest, on the cache's thread. */
    @FunctionalInterface
    public interface VersionListener {
        /** Must return quickly, and must not call back into the cache while holding a lock of its own. */
        void newest(ModelVersion model);
    }

    private volatile VersionListener versionListener = model -> {};

    /**
     * A cache that forgets nothing (see the other constructor).
     *
     * @param consumer a consumer without group, configured read_committed; the cache owns it from
     *     now on (polls it, closes it)
     * @param topic the model topic's name
     * @param decoder the {@code ModelVersion} value deserializer
     * @param deadLetters where refused records go
     * @param clock wall clock for the dead letters' timestamps
     */
    public ModelCache(
            Consumer<byte[], byte[]> consumer,
            String topic,
            Deserializer<ModelVersion> decoder,
            DeadLetterSink deadLetters,
            Clock clock) {
        this(consumer, null, topic, decoder, deadLetters, clock);
    }

    /**
     * A cache that forgets a quiet job's model after the {@linkplain #setRetention retention} and
     * reads it again with a consumer of {@code recallReaders} if the job comes back.
     *
     * @param recallReaders makes a consumer like {@code consumer}, for one read again (closed after it)
     */
    public ModelCache(
            Consumer<byte[], byte[]> consumer,
            Supplier<Consumer<byte[], byte[]>> recallReaders,
            String topic,
            Deserializer<ModelVersion> decoder,
            DeadLetterSink deadLetters,
            Clock clock) {
        this(
                consumer,
                recallReaders,
                topic,
                decoder,
                deadLetters,
                clock,
                new ModelAssembler(MAX_MODEL_BYTES, MAX_INCOMPLETE),
                System::nanoTime);
    }

    /** With the assembler of chunked versions and the quiet times' clock given, for tests. */
    ModelCache(
            Consumer<byte[], byte[]> consumer,
            Supplier<Consumer<byte[], byte[]>> recallReaders,
            String topic,
            Deserializer<ModelVersion> decoder,
            DeadLetterSink deadLetters,
            Clock clock,
            ModelAssembler assembler,
            LongSupplier ticker) {
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.decoder = new RecordDecoder<>(decoder, "model version");
        this.recall = recallReaders == null
                ? null
                : new ModelRecall(
                        recallReaders, topic, this.decoder, RECALL_TIMEOUT, ModelRecall.DEFAULT_OUTAGE_PATIENCE);
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.assembler = Objects.requireNonNull(assembler, "assembler");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.lastForgetCheck = ticker.getAsLong();
    }

    /**
     * How long a job's model is kept while nothing of it is read ({@link #DEFAULT_RETENTION} unless
     * set); then it is forgotten, and read again if the job comes back ({@link #recall}).
     */
    public void setRetention(Duration retention) {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("the model retention must be positive, was " + retention);
        }
        this.retention = retention;
    }

    /**
     * Tells {@code listener} of every version kept as its job's newest from now on (the agent wakes
     * its task thread with it when an assignment is parked for that version); one listener, the
     * last set.
     */
    public void setVersionListener(VersionListener listener) {
        this.versionListener = Objects.requireNonNull(listener, "listener");
    }

    /** Starts following the topic on a background (daemon) thread named {@code threadName}. */
    public synchronized void start(String threadName) {
        if (thread != null || closed) {
            throw new IllegalStateException("model cache already started or closed");
        }
        thread = new Thread(this::followUntilClosed, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public synchronized Optional<ModelVersion> latest(String job) {
        return Optional.ofNullable(models.get(job));
    }

    @Override
    public synchronized Optional<ModelVersion> await(String job, long version, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            ModelVersion model = models.get(job);
            if (model != null && model.getVersion() >= version) {
                return Optional.of(model);
            }
            long remaining = deadline - System.nanoTime();
            if (remaining < WHOLE_MILLI) {
                return Optional.empty();
            }
            // whole milliseconds: Java 17 rounds a wait's fraction of one up, past the deadline
            TimeUnit.NANOSECONDS.timedWait(this, remaining - remaining % WHOLE_MILLI);
        }
    }

    @Override
    public synchronized boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!caughtUp) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, remaining);
        }
        return true;
    }

    @Override
    public synchronized boolean arriving(String job, long version) {
        Long newest = arriving.get(job);
        return newest != null && newest >= version;
    }

    /**
     * Reads a forgotten job's model again, on the thread of the reads again (one partition at a
     * time): its partition from the beginning, in one read with every other job recalled for that
     * partition before the read starts. Whether the job's model is being read again now (asked
     * before, or now); false for a job not forgotten, and for one whose last read found nothing
     * less than {@link #RECALL_COOL_DOWN} ago (its assignments wait as those of a job without a
     * model, for a version that can only come live).
     */
    @Override
    public synchronized boolean recall(String job) {
        if (closed) {
            return false;
        }
        if (recalling.contains(job)) {
            return true;
        }
        Integer partition = forgotten.get(job);
        if (partition == null) {
            return false;
        }
        Long missedAt = missed.get(job);
        if (missedAt != null) {
            if (ticker.getAsLong() - missedAt < RECALL_COOL_DOWN.toNanos()) {
                return false;
            }
            missed.remove(job);
        }
        Set<String> jobs = waiting.get(partition);
        if (jobs == null) { // no read of the partition queued: queue one, which takes the jobs waiting then
            if (recalls == null) {
                recalls = Executors.newSingleThreadExecutor(task -> Threads.daemon(task, "model-recall"));
            }
            try {
                recalls.execute(() -> readAgain(partition)); // it waits for this lock to take the jobs
            } catch (RejectedExecutionException e) {
                log.warn("reading the model of job {} again could not be queued: {}", job, e.toString());
                return false;
            }
            jobs = new HashSet<>();
            waiting.put(partition, jobs);
        }
        jobs.add(job);
        recalling.add(job);
        return true;
    }

    /** Whether {@code job}'s model is being read again, or waits for it ({@link #recall}); starts nothing. */
    @Override
    public synchronized boolean readingAgain(String job) {
        return !closed && recalling.contains(job);
    }

    @Override
    public synchronized boolean forgot(String job) {
        return forgotten.containsKey(job);
    }

    /**
     * Reads the models of the jobs waiting on {@code partition} again, in one read, keeping what it
     * finds as if read live; a job it found nothing of (or all of them, if it failed) is not read
     * again before {@link #RECALL_COOL_DOWN}.
     */
    private void readAgain(int partition) {
        Set<String> jobs;
        synchronized (this) {
            jobs = waiting.remove(partition); // recalled from now on: the next read's
        }
        if (jobs == null) {
            return;
        }
        Map<String, Integer> found = new HashMap<>(); // this thread's only
        long started = System.nanoTime();
        try {
            recall.read(jobs, partition, (whole, at) -> {
                found.merge(whole.getJob(), 1, Integer::sum);
                keepRecalled(whole, at);
            });
        } catch (RuntimeException e) {
            log.warn("reading the models of {} job(s) again failed: {}", jobs.size(), e.toString());
        } finally {
            synchronized (this) {
                for (String job : jobs) {
                    recalling.remove(job);
                    if (!found.containsKey(job) && forgotten.containsKey(job)) {
                        missed.put(job, ticker.getAsLong());
                    } else {
                        missed.remove(job);
                    }
                }
                notifyAll();
            }
        }
        log.info(
                "models of {} job(s) read again from partition {} in {} ms: {} version(s) of {} job(s) found",
                jobs.size(),
                partition,
                (System.nanoTime() - started) / 1_000_000,
                found.values().stream().mapToInt(Integer::intValue).sum(),
                found.size());
    }

    /** A version of a forgotten job read again: kept (unless a newer one is there), as if read live. */
    private void keepRecalled(ModelVersion whole, ModelPosition at) {
        if (publish(whole, at)) {
            heard(whole.getJob(), at.partition());
            versionListener.newest(whole); // outside the cache's lock
        }
    }

    @Override
    public synchronized Duration quietFor(String job) {
        Long heard = lastHeard.get(job);
        return heard == null ? ChronoUnit.FOREVER.getDuration() : Duration.ofNanos(ticker.getAsLong() - heard);
    }

    /** How many jobs' models the cache holds now. */
    public synchronized int jobs() {
        return models.size();
    }

    /** Stops the background thread and closes the consumer. */
    @Override
    public void close() {
        Thread running;
        ExecutorService reads;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = thread;
            reads = recalls;
            // reads queued are dropped below: nothing is being read again any more
            recalling.clear();
            waiting.clear();
        }
        if (reads != null) {
            reads.shutdownNow(); // a read again stops at its next poll
            awaitQuietly(reads, Duration.ofSeconds(5));
        }
        if (running == null) {
            consumer.close();
            return;
        }
        consumer.wakeup();
        Threads.awaitEnd(running, Duration.ofSeconds(10));
    }

    private void followUntilClosed() {
        try {
            while (!closed) {
                try {
                    pollOnce(POLL_TIMEOUT);
                } catch (WakeupException e) {
                    // close() woke us up; the loop condition ends it
                } catch (InterruptException e) {
                    break;
                } catch (KafkaException | SchemaRegistryException e) {
                    // e.g. the cluster or the Schema Registry unreachable: the record is read again
                    log.warn("reading model topic {} failed, retrying in {}: {}", topic, RETRY_BACKOFF, e.toString());
                    sleepQuietly(RETRY_BACKOFF);
                }
            }
        } finally {
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                log.debug("closing the model consumer: {}", e.toString());
            }
        }
    }

    /**
     * One step of following the topic: assigns all its partitions once it exists, then polls once
     * and applies what came. Package-private so tests can step the cache without a thread.
     */
    void pollOnce(Duration timeout) {
        if (!assigned) {
            List<PartitionInfo> infos;
            try {
                infos = consumer.partitionsFor(topic, timeout);
            } catch (TimeoutException e) {
                // usual while a cluster starts or is busy: a warning only if it goes on
                long now = System.nanoTime();
                if (metadataTimingOutSince == 0) {
                    metadataTimingOutSince = now;
                } else if (now - metadataTimingOutSince > METADATA_PATIENCE.toNanos()) {
                    log.warn(
                            "no metadata of model topic {} for {} s, still trying: {}",
                            topic,
                            METADATA_PATIENCE.toSeconds(),
                            e.getMessage());
                    metadataTimingOutSince = now;
                }
                log.debug("model topic {}: metadata not fetched yet: {}", topic, e.getMessage());
                return;
            }
            metadataTimingOutSince = 0;
            if (infos == null || infos.isEmpty()) {
                log.debug("model topic {} does not exist yet", topic);
                sleepQuietly(timeout);
                return;
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            partitionCount = partitions.size();
            consumer.seekToBeginning(partitions);
            assigned = true;
            catchingUp = true;
            log.info("following model topic {} ({} partitions)", topic, partitions.size());
        }
        forgetQuietJobs();
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        if (records.isEmpty() && catchingUp) {
            synchronized (this) {
                catchingUp = false;
                caughtUp = true;
                notifyAll();
            }
        }
        Set<TopicPartition> done = new HashSet<>();
        for (TopicPartition partition : records.partitions()) {
            for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
                try {
                    accept(record);
                } catch (RuntimeException e) {
                    // Not a bad record (those are dead-lettered in accept) but e.g. the registry
                    // unreachable: read this record again on the next poll, and every partition's
                    // records this poll returned and nobody applied yet.
                    consumer.seek(partition, record.offset());
                    for (TopicPartition other : records.partitions()) {
                        if (!other.equals(partition) && !done.contains(other)) {
                            consumer.seek(other, records.records(other).get(0).offset());
                        }
                    }
                    throw e;
                }
            }
            done.add(partition);
        }
    }

    /**
     * Forgets, at most once a {@link #FORGET_CHECK}, every job whose model has been quiet for the
     * retention: its versions, its incomplete slices, when it was heard. Its name and partition
     * are kept, to read its model again if it comes back. A cache that cannot read again forgets
     * nothing.
     */
    private void forgetQuietJobs() {
        long now = ticker.getAsLong();
        if (recall == null || now - lastForgetCheck < Math.min(FORGET_CHECK.toNanos(), retention.toNanos())) {
            return;
        }
        lastForgetCheck = now;
        long retentionNanos = retention.toNanos();
        List<String> quiet;
        synchronized (this) {
            quiet = lastHeard.entrySet().stream()
                    .filter(e -> now - e.getValue() >= retentionNanos && !recalling.contains(e.getKey()))
                    .map(Map.Entry::getKey)
                    .toList();
            for (String job : quiet) {
                models.remove(job);
                placesOf.remove(job);
                arriving.remove(job);
                lastHeard.remove(job);
                Integer partition = partitionOf.remove(job);
                forgotten.put(job, partition != null ? partition : Topics.partitionOfJob(job, partitionCount));
            }
        }
        for (String job : quiet) {
            assembler.forget(job);
            log.info("model of job {} forgotten: nothing of it read for {}", job, retention);
        }
    }

    /** Applies one record of the model topic. Package-private for tests. */
    void accept(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        if (record.value() == null) {
            refuse(
                    record,
                    "tombstone " + (key == null ? "without a key" : "for key '" + key + "'")
                            + " on the model topic: models are never deleted, not applied",
                    null);
            return;
        }
        Decoded<ModelVersion> decoded = decoder.decode(record.topic(), record.value());
        if (decoded instanceof Decoded.Undecodable<ModelVersion> bad) {
            refuse(record, bad.reason(), bad.error());
            return;
        }
        ModelVersion model = ((Decoded.Valid<ModelVersion>) decoded).record();
        String problem = problem(key, model);
        if (problem != null) {
            refuse(record, problem, null);
            return;
        }
        long newest = newestVersion(model.getJob());
        if (model.getVersion() < newest) {
            refuse(
                    record,
                    "model of job " + model.getJob() + " version " + model.getVersion()
                            + " goes backwards (the newest is " + newest + "), not applied",
                    null);
            return;
        }
        ModelAssembler.Result assembled = assembler.offer(model);
        if (assembled instanceof ModelAssembler.Refused refused) {
            arrived(model.getJob());
            refuse(record, refused.reason(), null);
        } else if (assembled instanceof ModelAssembler.Whole whole) {
            arrived(model.getJob());
            String wrong = ModelRules.wholeProblem(whole.model());
            if (wrong != null) {
                refuse(record, wrong + ", not applied", null);
            } else {
                if (publish(whole.model(), new ModelPosition(record.partition(), record.offset()))) {
                    heard(whole.model().getJob(), record.partition());
                    log.debug(
                            "job {} model version {} kept, {} ms after the trainer sent it",
                            whole.model().getJob(),
                            whole.model().getVersion(),
                            System.currentTimeMillis() - record.timestamp());
                    versionListener.newest(whole.model()); // outside the cache's lock
                }
            }
        } else {
            arriving(model);
            heard(model.getJob(), record.partition());
        }
    }

    /** The newest version of {@code job} kept, or -1. */
    private synchronized long newestVersion(String job) {
        ModelVersion current = models.get(job);
        return current == null ? -1 : current.getVersion();
    }

    /**
     * Keeps {@code model} as its job's newest unless an older version; whether it was kept. It was
     * read at {@code position} (live or read again: the same record's place), kept under the same
     * lock as the version, so that a waiter woken by it finds where it was read ({@link #committedAt}).
     */
    private synchronized boolean publish(ModelVersion model, ModelPosition position) {
        ModelVersion current = models.get(model.getJob());
        if (current == null || model.getVersion() >= current.getVersion()) {
            models.put(model.getJob(), model);
            placed(model, position);
            notifyAll();
            return true;
        }
        return false;
    }

    /** {@code model}, just kept as its job's newest, was read at {@code position}. */
    private void placed(ModelVersion model, ModelPosition position) {
        ArrayDeque<Placed> places = placesOf.computeIfAbsent(model.getJob(), j -> new ArrayDeque<>());
        Placed newest = places.peekFirst();
        if (newest != null && newest.version() == model.getVersion()) {
            places.removeFirst(); // the version again, in another record: that record now
        }
        places.addFirst(new Placed(model.getVersion(), position));
        if (places.size() > PLACES_KEPT) {
            places.removeLast();
        }
    }

    @Override
    public synchronized Optional<ModelPosition> committedAt(String job, long version) {
        return placesOf.getOrDefault(job, new ArrayDeque<>()).stream()
                .filter(p -> p.version() == version)
                .map(Placed::position)
                .findFirst();
    }

    /** A slice of {@code model}'s version was stored: the version is on its way. */
    private synchronized void arriving(ModelVersion slice) {
        arriving.merge(slice.getJob(), slice.getVersion(), Math::max);
    }

    /**
     * Something of {@code job}'s model, read from {@code partition}, was stored just now: the job is
     * alive (and no longer forgotten). The partition is where it is read again if it is forgotten
     * (where the trainer wrote it, whatever the topic's partition count is now).
     */
    private synchronized void heard(String job, int partition) {
        lastHeard.put(job, ticker.getAsLong());
        partitionOf.put(job, partition);
        forgotten.remove(job);
        missed.remove(job);
    }

    /** The version of {@code job} being put together is whole, or dropped. */
    private synchronized void arrived(String job) {
        arriving.remove(job);
    }

    /** Why a record of the model topic under {@code key} is refused, or null (a {@link ModelRecall}'s rule too). */
    static String problem(String key, ModelVersion model) {
        if (model.getJob().isBlank()) {
            return "model version without job";
        }
        String name = JobNames.problem(model.getJob());
        if (name != null) {
            return "model version: " + name;
        }
        String version = ModelRules.versionProblem(model);
        if (version != null) {
            return version;
        }
        if (model.getChunks() < 1 || model.getChunks() > Chunks.MAX_CHUNKS) {
            return "model of job " + model.getJob() + " version " + model.getVersion() + ": " + model.getChunks()
                    + " chunks is out of range (1 to " + Chunks.MAX_CHUNKS + ")";
        }
        if (model.getChunk() < 0 || model.getChunk() >= model.getChunks()) {
            return "model of job " + model.getJob() + " version " + model.getVersion() + ": chunk " + model.getChunk()
                    + " of " + model.getChunks() + " is out of range";
        }
        String expected = Chunks.key(model.getJob(), model.getChunk(), model.getChunks());
        if (key != null && !key.equals(expected)) {
            return "model of job " + model.getJob() + " under key '" + key + "' (the key must be '" + expected + "')";
        }
        return null;
    }

    /**
     * Skips a record, and dead-letters it unless it was read while catching up: every agent reads
     * the whole topic when it starts, and a bad record stays on it (compacted, not deleted), so
     * letters written then would repeat on every start. It was dead-lettered by the agents that
     * read it live; here it is logged.
     */
    private void refuse(ConsumerRecord<byte[], byte[]> record, String reason, Throwable error) {
        if (catchingUp) {
            log.warn(
                    "skipping {}-{}@{} (read while catching up, not dead-lettered again): {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    reason);
            return;
        }
        log.warn("dead-lettering {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), reason);
        deadLetters.deadLetter(DEAD_LETTERS.of(record, reason, error, clock.millis()));
    }

    private static void awaitQuietly(ExecutorService executor, Duration timeout) {
        try {
            executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
