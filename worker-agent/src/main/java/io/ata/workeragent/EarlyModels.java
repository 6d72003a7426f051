package io.ata.workeragent;

import io.ata.platform.Threads;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the model topic {@code read_uncommitted}, from its end, for the versions the {@link
 * ModelCache} has not seen committed yet ({@link EarlyStart}). It keeps one version per job: the
 * newest whole one above the job's newest committed version, a sliced version put together as the
 * cache does (its place is its last slice's, where the cache places it too). Anything it cannot use
 * waits for its commit as before: it refuses nothing aloud, since a record that commits is judged,
 * and dead-lettered if it must be, by the model cache, and one that does not commit never mattered.
 */
public final class EarlyModels implements EarlyStart, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EarlyModels.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final RecordDecoder<ModelVersion> decoder;
    private final ModelSource committed;
    /**
     * The longest an early version is kept without its commit: a close's transaction commits within
     * milliseconds, and one that aborted (its trainer gone) is then closed again in another record.
     */
    static final Duration MAX_AGE = Duration.ofMinutes(1);

    /** How long {@link #startFollowing} waits for the reader to stand at the topic's end. */
    static final Duration START_PATIENCE = Duration.ofSeconds(5);

    /** The early version kept per job, and when it was read; guarded by {@code this}. */
    private final Map<String, Kept> early = new HashMap<>();

    private record Kept(EarlyModel model, long readNanos) {}

    /** Puts sliced versions together, as the model cache's does; the reading thread's alone. */
    private final ModelAssembler assembler = new ModelAssembler(ModelCache.MAX_MODEL_BYTES, ModelCache.MAX_INCOMPLETE);

    private final LongSupplier ticker;

    private volatile ModelCache.VersionListener listener = model -> {};
    private volatile boolean closed;
    /** Whether the reader is at the topic's end, following it (guarded by {@code this}). */
    private boolean following;

    private Thread thread;

    /**
     * @param consumer a consumer without group, configured {@code read_uncommitted}; owned from now on
     * @param topic the model topic's name
     * @param decoder the {@code ModelVersion} value deserializer
     * @param committed the agent's committed models: a version at or below a job's newest there is old
     */
    public EarlyModels(
            Consumer<byte[], byte[]> consumer,
            String topic,
            Deserializer<ModelVersion> decoder,
            ModelSource committed) {
        this(consumer, topic, decoder, committed, System::nanoTime);
    }

    /** With the clock of the early versions' ages given, for tests. */
    EarlyModels(
            Consumer<byte[], byte[]> consumer,
            String topic,
            Deserializer<ModelVersion> decoder,
            ModelSource committed,
            LongSupplier ticker) {
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.decoder = new RecordDecoder<>(decoder, "model version");
        this.committed = Objects.requireNonNull(committed, "committed");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    /** Told of every early version kept (the agent wakes its task thread for parked assignments with it). */
    public void setVersionListener(ModelCache.VersionListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** Starts following the topic on a daemon thread named {@code threadName}. */
    public synchronized void start(String threadName) {
        if (thread != null || closed) {
            throw new IllegalStateException("early models already started or closed");
        }
        thread = new Thread(this::followUntilClosed, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public synchronized Optional<EarlyModel> early(String job, long version) {
        Kept k = early.get(job);
        return k != null && k.model().model().getVersion() == version ? Optional.of(k.model()) : Optional.empty();
    }

    @Override
    public synchronized void distrust(String job, EarlyModel model) {
        Kept k = early.get(job);
        if (k != null && k.model().equals(model)) {
            early.remove(job);
        }
    }

    /**
     * Starts following ({@link #start}) and waits up to {@link #START_PATIENCE} for the reader to
     * stand at the topic's end, so an agent's first rounds start early too. An agent that cannot
     * wait goes on without: its tasks start on committed versions until the reader follows.
     */
    public void startFollowing(String threadName) {
        start(threadName);
        try {
            if (!awaitFollowing(START_PATIENCE)) {
                log.info(
                        "the early model reader is not following yet: tasks start on committed versions until it does");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until the reader follows the topic (it stands at its end), for at most {@code timeout};
     * whether it does. A version written before then is seen committed only.
     */
    synchronized boolean awaitFollowing(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!following && !closed) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return following;
    }

    /** How many jobs have an early version kept now. */
    synchronized int kept() {
        return early.size();
    }

    private void followUntilClosed() {
        try {
            follow();
        } finally {
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            } catch (RuntimeException e) {
                log.debug("closing the early model reader's consumer: {}", e.toString());
            }
        }
    }

    private void follow() {
        boolean assigned = false;
        while (!closed) {
            try {
                if (!assigned) {
                    assigned = assign();
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL_TIMEOUT)) {
                    accept(record);
                }
                forgetCommitted();
            } catch (WakeupException e) {
                if (!closed) {
                    log.debug("early model reader woken: {}", e.toString());
                }
            } catch (InterruptException | InterruptedException e) {
                return; // interrupted: the agent is going
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                log.warn("reading {} early failed, retrying in {}: {}", topic, RETRY_BACKOFF, e.toString());
                try {
                    Thread.sleep(RETRY_BACKOFF.toMillis());
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /** Assigns every partition of the topic, at its end (the past is the model cache's); whether it exists yet. */
    private boolean assign() throws InterruptedException {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, POLL_TIMEOUT);
        if (infos == null || infos.isEmpty()) {
            Thread.sleep(POLL_TIMEOUT.toMillis());
            return false;
        }
        List<TopicPartition> partitions = infos.stream()
                .map(i -> new TopicPartition(topic, i.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position); // at the end now, not at the first poll
        synchronized (this) {
            following = true;
            notifyAll();
        }
        return true;
    }

    /** Keeps {@code record}'s version, once whole, if it is valid and newer than what is known of its job. */
    void accept(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return;
        }
        if (!(decoder.decode(record.topic(), record.value()) instanceof Decoded.Valid<ModelVersion> valid)) {
            return;
        }
        ModelVersion slice = valid.record();
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        if (ModelCache.problem(key, slice) != null) {
            return;
        }
        String job = slice.getJob();
        if (slice.getVersion()
                <= committed.latest(job).map(ModelVersion::getVersion).orElse(-1L)) {
            return;
        }
        // a sliced version is whole at its last slice, the record the model cache places it at too
        if (!(assembler.offer(slice) instanceof ModelAssembler.Whole whole)
                || ModelRules.wholeProblem(whole.model()) != null) {
            return;
        }
        ModelVersion model = whole.model();
        synchronized (this) {
            Kept kept = early.get(job);
            if (kept != null && kept.model().model().getVersion() > model.getVersion()) {
                return;
            }
            early.put(
                    job,
                    new Kept(
                            new EarlyModel(model, new ModelPosition(record.partition(), record.offset())),
                            ticker.getAsLong()));
        }
        listener.newest(model); // outside the lock
    }

    /**
     * Drops the early versions the committed models have reached (of no use any more), and those
     * kept {@link #MAX_AGE} without a commit (a close that failed, which would otherwise hold a
     * whole model per job for good). Package-private for tests.
     */
    void forgetCommitted() {
        List<String> jobs;
        synchronized (this) {
            jobs = List.copyOf(early.keySet());
        }
        long now = ticker.getAsLong();
        for (String job : jobs) {
            long newest = committed.latest(job).map(ModelVersion::getVersion).orElse(-1L);
            synchronized (this) {
                Kept kept = early.get(job);
                if (kept != null
                        && (kept.model().model().getVersion() <= newest
                                || now - kept.readNanos() >= MAX_AGE.toNanos())) {
                    early.remove(job);
                }
            }
        }
    }

    @Override
    public void close() {
        Thread running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = thread;
        }
        if (running == null) {
            consumer.close();
            return;
        }
        consumer.wakeup(); // the reading thread closes its consumer as it ends (one thread per consumer)
        Threads.awaitEnd(running, Duration.ofSeconds(10));
    }
}
