package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.TaskResult;
import io.ata.schemas.Topics;
import io.ata.schemas.kafka.DeadLetters;
import io.ata.schemas.kafka.KafkaClientFactory;
import io.ata.schemas.kafka.KafkaErrors;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trainer of one job on Kafka: reads results from {@code gradients}, closes a round once it
 * holds B distinct results (at the end of the poll that completed it), and publishes the new model
 * version with the round's close and the next round's open, exactly once. The contract it follows
 * is {@code docs/streaming.md}.
 *
 * <pre>{@code
 * try (Trainer trainer = new Trainer(config, registry).start()) {
 *     trainer.awaitRounds(100, Duration.ofMinutes(5));
 *     System.out.println(trainer.metrics());
 * }
 * }</pre>
 *
 * <p>How it stays exactly once: it is a consume-transform-produce loop with one Kafka
 * transaction per round. When round k completes, one transaction publishes model version k,
 * {@code CLOSED k}, {@code OPENED k+1}, the dead letters of the round, and the consumer offsets of
 * every gradient read so far. Either all of that is visible or none of it is. Nothing is committed
 * while a round is open, so a trainer that dies while round k is open leaves model version k-1 and
 * the group's offsets where round k-1 ended: its successor resumes from that version (see
 * {@link TrainerState}), reads the gradients again from those offsets, and so sees the open round's
 * results again and none of a closed round's.
 *
 * <p>Start: {@code initTransactions()} (fencing an older trainer with the same transactional id
 * and settling what it left open), then the job's latest model version from {@code model}
 * ({@link ModelReader}). None: a new job, and one transaction publishes model version 0 and
 * {@code OPENED 1} and sets the group's offsets to the current end of {@code gradients}, so no old
 * result counts and no new one is missed.
 *
 * <p>Errors: a record that does not decode, or a result that cannot be used, goes to
 * {@code dead-letters} and the trainer continues. Another Kafka or Schema Registry error aborts the
 * open transaction and drops the open round's work, which is then read again from the committed
 * offsets (with back-off; after {@value #MAX_CONSECUTIVE_FAILURES} errors without a round closed in
 * between, the trainer stops). Being fenced by a newer trainer with the same transactional id, or an authorization
 * error, stops it at once: a trainer never fights back for its job. See {@link #failure()}.
 *
 * <p>Threads: {@link #start()} runs the loop on a thread of its own ({@link #run()} runs it on the
 * caller's). {@link #metrics()}, {@link #awaitRounds}, {@link #close()} and {@link #kill()} may be
 * called from any thread.
 */
public final class Trainer implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    /** Errors without a successful close in between after which the trainer gives up. */
    static final int MAX_CONSECUTIVE_FAILURES = 10;

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);
    /** Times a timed-out commit is tried again before the trainer gives up. */
    private static final int COMMIT_ATTEMPTS = 5;

    private static final DeadLetters DEAD_LETTERS = new DeadLetters(DeadLetters.TRAINER);

    private final TrainerConfig config;
    private final TrainingJob job;
    private final Topics topics;
    private final Clock clock;
    private final KafkaClientFactory clients;
    private final GradientDecoder decoder;
    private final Deserializer<ModelVersion> modelDeserializer;
    private final Serializer<ModelVersion> modelSerializer;
    private final Serializer<RoundEvent> roundSerializer;
    private final Serializer<DeadLetter> deadLetterSerializer;
    private final TrainerMetrics metrics = new TrainerMetrics();

    // Lifecycle, shared between the trainer thread and callers.
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Object progress = new Object();
    private volatile boolean stopRequested;
    private volatile boolean killRequested;
    private volatile Throwable failure;
    private volatile Thread thread;
    /** The consumer the trainer thread may be blocked in, for {@link #close()} to wake up. */
    private volatile Consumer<byte[], byte[]> wakeable;

    // Owned by the trainer thread.
    private Producer<String, byte[]> producer;
    private Consumer<byte[], byte[]> consumer;
    private TrainerState state;
    /** The model version of the last committed transaction: where an aborted round restarts from. */
    private ModelVersion lastCommittedModel;
    /** Next offset per partition of everything processed since the last commit. */
    private final Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
    /** Dead letters of the open round, published with its close. */
    private final List<ProducerRecord<String, byte[]>> pendingDeadLetters = new ArrayList<>();

    private boolean transactionOpen;
    private boolean shuttingDown;
    /** Errors survived since the last successful close; too many in a row stop the trainer. */
    private int failuresSinceLastClose;

    /** A trainer of {@code config}'s job, with record schemas in {@code registry}. Call {@link #start()}. */
    public Trainer(TrainerConfig config, SchemaRegistryClient registry) {
        this(config, registry, KafkaClientFactory.KAFKA);
    }

    /** With other Kafka clients, for tests. */
    Trainer(TrainerConfig config, SchemaRegistryClient registry, KafkaClientFactory clients) {
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(registry, "registry");
        this.clients = Objects.requireNonNull(clients, "clients");
        this.job = config.trainingJob();
        this.topics = new Topics(config.topicPrefix());
        this.clock = config.clock();
        this.decoder = new GradientDecoder(
                job.job(),
                topics.gradients().name(),
                topics.gradients().valueSerde(registry).deserializer());
        this.modelDeserializer = topics.model().valueSerde(registry).deserializer();
        this.modelSerializer = topics.model().valueSerde(registry).serializer();
        this.roundSerializer = topics.rounds().valueSerde(registry).serializer();
        this.deadLetterSerializer = topics.deadLetters().valueSerde(registry).serializer();
    }

    // ---- lifecycle -------------------------------------------------------------------------

    /**
     * Runs the trainer on a new thread named {@code ata-trainer-<job>} and returns at once.
     *
     * @throws IllegalStateException if it was started (or run) before
     */
    public Trainer start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("trainer of job " + job.job() + " was already started");
        }
        Thread t = new Thread(this::trainThenStop, "ata-trainer-" + job.job());
        thread = t;
        t.start();
        return this;
    }

    /**
     * Runs the trainer on the calling thread until the job's last round closed, {@link #close()}
     * or {@link #kill()} is called, or it fails ({@link #failure()}).
     *
     * @throws IllegalStateException if it was started (or run) before
     */
    @Override
    public void run() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("trainer of job " + job.job() + " was already started");
        }
        thread = Thread.currentThread();
        trainThenStop();
    }

    /**
     * Stops cleanly and waits for it: the records already polled are processed (a round they
     * complete is still closed and committed), the open round's work is left uncommitted for the
     * next trainer to read again, and the consumer leaves its group.
     */
    @Override
    public void close() {
        stop(false);
    }

    /**
     * Stops abruptly, as a crash would, and waits for it: for restart tests. The trainer stops
     * before its next record or commit, aborts its open transaction and closes its clients
     * without waiting. Whatever it had not committed is read again by the next trainer.
     */
    public void kill() {
        stop(true);
    }

    private void stop(boolean kill) {
        if (kill) {
            killRequested = true;
        } else {
            stopRequested = true;
        }
        Consumer<byte[], byte[]> blocked = wakeable;
        if (blocked != null) {
            try {
                blocked.wakeup();
            } catch (RuntimeException e) {
                log.debug("waking up the consumer", e);
            }
        }
        if (!started.get() || Thread.currentThread() == thread) {
            return; // never started, or called by a listener on the trainer thread: it stops on return
        }
        try {
            if (!stopped.await(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("trainer of job {} did not stop within {}", job.job(), CLOSE_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean stopping() {
        return stopRequested || killRequested;
    }

    /**
     * Waits until the job's last closed round (its model version) is at least {@code rounds}.
     * Counts rounds closed by earlier trainers of the job too, so after a restart it waits for
     * the job, not for this instance.
     *
     * @return true once reached; false on timeout, or if the trainer stopped before
     */
    public boolean awaitRounds(long rounds, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (progress) {
            while (metrics.snapshot().lastClosedRound() < rounds) {
                long left = deadline - System.nanoTime();
                if (stopped.getCount() == 0 || left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(progress, left);
            }
            return true;
        }
    }

    /** The counters right now; thread-safe. */
    public TrainerMetrics.Snapshot metrics() {
        return metrics.snapshot();
    }

    /** Whether the trainer was started and has not stopped yet. */
    public boolean isRunning() {
        return started.get() && stopped.getCount() > 0;
    }

    /** Why the trainer stopped on its own, if it failed. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    public TrainerConfig config() {
        return config;
    }

    private void notifyProgress() {
        synchronized (progress) {
            progress.notifyAll();
        }
    }

    // ---- the loop --------------------------------------------------------------------------

    private void trainThenStop() {
        try {
            if (!stopping()) {
                train();
            }
        } catch (Throwable t) {
            if (stopping()) {
                log.debug("trainer of job {} stopping: {}", job.job(), t.toString());
            } else {
                failure = t;
                log.error("trainer of job {} failed", job.job(), t);
            }
        } finally {
            shutdown();
            stopped.countDown();
            notifyProgress();
        }
    }

    private void train() {
        producer = clients.producer(producerProperties());
        consumer = clients.consumer(consumerProperties());
        wakeable = consumer;
        producer.initTransactions();
        resume();
        consumer.subscribe(List.of(topics.gradients().name()), new RebalanceListener());
        while (!state.finished() && !stopping()) {
            try {
                processBatch(consumer.poll(config.pollTimeout()));
            } catch (WakeupException | CancellationException e) {
                // close() or kill(): the loop's condition ends it
            } catch (RuntimeException e) {
                if (stopping()) {
                    return;
                }
                failuresSinceLastClose++;
                if (KafkaErrors.isFatal(e) || failuresSinceLastClose >= MAX_CONSECUTIVE_FAILURES) {
                    throw e;
                }
                recoverFrom(e, failuresSinceLastClose);
            }
        }
        if (state.finished()) {
            log.info(
                    "job {} finished: round {} closed, objective {}",
                    job.job(),
                    state.modelVersion(),
                    state.objective());
        }
    }

    /**
     * Processes one poll's records, then closes the round if it is complete. Closing after the
     * whole poll rather than at the B-th result costs microseconds and keeps the results of the
     * round that arrived with it as LATE timings: the discarded work, which the broker learns from.
     * (A poll cannot hold results of the next round: that round is opened by this close.)
     */
    private void processBatch(ConsumerRecords<byte[], byte[]> records) {
        for (ConsumerRecord<byte[], byte[]> record : records) {
            if (killRequested) {
                throw new CancellationException("killed");
            }
            process(record);
            consumed.put(
                    new TopicPartition(record.topic(), record.partition()),
                    new OffsetAndMetadata(record.offset() + 1, record.leaderEpoch(), ""));
        }
        if (state.roundComplete()) {
            closeRound();
        }
    }

    /** One record of {@code gradients}: ignored, dead-lettered, or offered to the open round. */
    private void process(ConsumerRecord<byte[], byte[]> record) {
        GradientDecoder.Outcome decoded = decoder.decode(record.key(), record.value());
        if (decoded instanceof GradientDecoder.OtherJob) {
            metrics.otherJobIgnored();
            return;
        }
        if (decoded instanceof GradientDecoder.Undecodable bad) {
            deadLetter(record, bad.reason(), bad.error());
            return;
        }
        TaskResult result = ((GradientDecoder.Result) decoded).result();
        OfferOutcome outcome = state.offer(result);
        metrics.resultOffered(outcome);
        if (outcome == OfferOutcome.INVALID) {
            deadLetter(record, "invalid result: " + state.invalidReason(result).orElse("unknown reason"), null);
        }
    }

    /** Queues a dead letter for {@code record}; it is published with the round's close. */
    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason, Throwable error) {
        String topic = topics.deadLetters().name();
        DeadLetter letter = DEAD_LETTERS.of(record, reason, error, clock.millis());
        pendingDeadLetters.add(
                new ProducerRecord<>(topic, DeadLetters.keyOf(letter), deadLetterSerializer.serialize(topic, letter)));
        metrics.deadLettered();
        log.warn(
                "job {}: dead letter for {}-{}@{}: {}",
                job.job(),
                record.topic(),
                record.partition(),
                record.offset(),
                letter.getReason());
    }

    private void closeRound() {
        Transition transition = state.closeRound();
        publish(transition, Map.copyOf(consumed));
        consumed.clear();
        lastCommittedModel = transition.model();
        failuresSinceLastClose = 0;
        RoundSummary round = transition.closed();
        metrics.roundClosed(round.round(), round.objective());
        log.debug(
                "job {} round {} closed in {} ms: objective {}, accepted {}, duplicates {}, stale {}, late {}, "
                        + "invalid {}",
                round.job(),
                round.round(),
                round.roundTimeMs(),
                round.objective(),
                round.accepted(),
                round.duplicates(),
                round.stale(),
                round.late(),
                round.invalid());
        notifyProgress();
        try {
            config.listener().roundClosed(round);
        } catch (RuntimeException e) {
            log.warn("round listener failed on round {} of job {}", round.round(), job.job(), e);
        }
    }

    /**
     * One transaction: the model version, the round events (key: the job), the round's dead
     * letters, and {@code offsets} as the group's committed offsets.
     */
    private void publish(Transition transition, Map<TopicPartition, OffsetAndMetadata> offsets) {
        producer.beginTransaction();
        transactionOpen = true;
        String modelTopic = topics.model().name();
        producer.send(
                new ProducerRecord<>(modelTopic, job.job(), modelSerializer.serialize(modelTopic, transition.model())));
        String roundsTopic = topics.rounds().name();
        for (RoundEvent event : transition.roundEvents()) {
            producer.send(new ProducerRecord<>(roundsTopic, job.job(), roundSerializer.serialize(roundsTopic, event)));
        }
        for (ProducerRecord<String, byte[]> letter : pendingDeadLetters) {
            producer.send(letter);
        }
        if (!offsets.isEmpty()) {
            producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
        }
        if (killRequested) {
            throw new CancellationException("killed before commit");
        }
        commit();
        transactionOpen = false;
        pendingDeadLetters.clear();
    }

    /**
     * Commits the open transaction. A commit that timed out may or may not have happened, and
     * Kafka does not allow aborting it: the rule is to call commit again until it answers.
     */
    private void commit() {
        for (int attempt = 1; ; attempt++) {
            try {
                producer.commitTransaction();
                return;
            } catch (TimeoutException e) {
                if (killRequested) {
                    throw new CancellationException("killed while committing");
                }
                if (attempt >= COMMIT_ATTEMPTS) {
                    // not a KafkaException: fatal, the outcome is unknown and cannot be settled here
                    throw new IllegalStateException(
                            "the commit of job " + job.job() + " did not complete after " + attempt + " attempts", e);
                }
                log.warn("job {}: commit timed out, retrying ({} of {})", job.job(), attempt, COMMIT_ATTEMPTS);
            }
        }
    }

    // ---- start and recovery ----------------------------------------------------------------

    /**
     * Takes the job up from Kafka at start: from its latest model version, or as a new job. The
     * consumer, not yet subscribed, then starts at the group's committed offsets.
     */
    private void resume() {
        Optional<ModelVersion> latest = readLatestModel();
        if (latest.isPresent()) {
            state = TrainerState.recover(latest.get(), job, clock);
            lastCommittedModel = latest.get();
            log.info(
                    "job {}: resuming at model version {}{}",
                    job.job(),
                    state.modelVersion(),
                    state.finished() ? " (finished)" : ", round " + (state.modelVersion() + 1) + " open");
        } else {
            state = TrainerState.fresh(job, clock);
            Transition first = state.firstTransition();
            publish(first, startingOffsets());
            lastCommittedModel = first.model();
            log.info(
                    "job {}: new job, model version 0 published and round 1 opened (batch {}, policy '{}')",
                    job.job(),
                    job.batch(),
                    job.policy());
        }
        metrics.modelAt(state.modelVersion(), state.objective());
        notifyProgress();
    }

    private Optional<ModelVersion> readLatestModel() {
        try (Consumer<byte[], byte[]> reader = clients.consumer(modelReaderProperties())) {
            wakeable = reader;
            if (stopping()) {
                throw new CancellationException("stopping");
            }
            return new ModelReader(reader, topics.model().name(), job.job(), modelDeserializer, clock)
                    .latest(config.startupTimeout());
        } finally {
            wakeable = consumer;
        }
    }

    /**
     * The current end of every {@code gradients} partition: where a new job starts reading, so
     * results left from before it are not counted and none published after its OPENED 1 is missed.
     */
    private Map<TopicPartition, OffsetAndMetadata> startingOffsets() {
        String topic = topics.gradients().name();
        List<PartitionInfo> infos = consumer.partitionsFor(topic, config.startupTimeout());
        if (infos == null || infos.isEmpty()) {
            log.warn("topic {} does not exist yet; the trainer will read it from its beginning", topic);
            return Map.of();
        }
        List<TopicPartition> partitions = new ArrayList<>(infos.size());
        for (PartitionInfo info : infos) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        consumer.endOffsets(partitions, config.startupTimeout())
                .forEach((tp, end) -> offsets.put(tp, new OffsetAndMetadata(end)));
        return offsets;
    }

    /** Moves the consumer on {@code partitions} back to the group's committed offsets. */
    private void rewindToCommitted(Set<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(partitions);
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata offset = committed.get(tp);
            if (offset == null) {
                consumer.seekToBeginning(List.of(tp));
            } else {
                consumer.seek(tp, offset);
            }
        }
    }

    /**
     * After an error that Kafka lets us survive: aborts the open transaction (if the round's
     * close was under way, nothing of it is committed) and forgets the open round's work, which is
     * then read again from the committed offsets. The producer is kept on purpose: a new one's
     * {@code initTransactions()} would fence a newer trainer of the job, should this one be the
     * zombie; with the same producer, such a trainer fences this one and the abort fails fatally.
     */
    private void recoverFrom(RuntimeException error, int attempt) {
        metrics.recovered();
        long backoff = Math.min(MAX_BACKOFF.toMillis(), FIRST_BACKOFF.toMillis() << Math.min(attempt - 1, 20));
        log.warn(
                "job {}: {}; dropping the open round's work, reading it again in {} ms (attempt {} of {})",
                job.job(),
                error.toString(),
                backoff,
                attempt,
                MAX_CONSECUTIVE_FAILURES - 1);
        try {
            Thread.sleep(backoff);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted");
        }
        if (transactionOpen) {
            producer.abortTransaction();
            transactionOpen = false;
        }
        discardOpenRound(consumer.assignment());
    }

    /**
     * Forgets everything since the last commit: the open round starts again from the last
     * committed model version, and the consumer from the committed offsets of {@code rewind}.
     */
    private void discardOpenRound(Set<TopicPartition> rewind) {
        consumed.clear();
        pendingDeadLetters.clear();
        state = TrainerState.recover(lastCommittedModel, job, clock);
        rewindToCommitted(rewind);
    }

    /**
     * If Kafka takes partitions away mid-round (a second trainer joined the group), the results
     * read from them may be read again by someone else: the open round's work is dropped, and it
     * starts again from the committed offsets of the partitions this trainer keeps.
     */
    private final class RebalanceListener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            partitionsLeaving(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            partitionsLeaving(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            log.debug("job {}: assigned {}", job.job(), partitions);
        }
    }

    private void partitionsLeaving(Collection<TopicPartition> leaving) {
        if (leaving.isEmpty() || shuttingDown || stopping() || (consumed.isEmpty() && pendingDeadLetters.isEmpty())) {
            return;
        }
        log.warn(
                "job {}: partitions {} taken away mid-round; dropping the open round's uncommitted work",
                job.job(),
                leaving);
        metrics.recovered();
        Set<TopicPartition> kept = new HashSet<>(consumer.assignment());
        kept.removeAll(leaving);
        discardOpenRound(kept);
    }

    // ---- clients ---------------------------------------------------------------------------

    private Map<String, Object> producerProperties() {
        Map<String, Object> p = config.clientConfig();
        p.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + job.job());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.transactionalId());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        p.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        return p;
    }

    private Map<String, Object> consumerProperties() {
        Map<String, Object> p = readCommitted();
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        p.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + job.job() + "-gradients");
        // a group without committed offsets (they expired): from the beginning; older rounds are stale
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return p;
    }

    private Map<String, Object> modelReaderProperties() {
        Map<String, Object> p = readCommitted();
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + job.job() + "-model");
        return p;
    }

    private Map<String, Object> readCommitted() {
        Map<String, Object> p = config.clientConfig();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        p.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        return p;
    }

    // ---- stopping --------------------------------------------------------------------------

    private void shutdown() {
        shuttingDown = true;
        wakeable = null;
        if (producer != null) {
            if (transactionOpen) {
                try {
                    producer.abortTransaction();
                } catch (RuntimeException e) {
                    log.debug("aborting the open transaction", e);
                }
            }
            closeQuietly(producer, killRequested ? Duration.ZERO : CLOSE_TIMEOUT);
        }
        if (consumer != null) {
            try {
                consumer.close(); // leaves the group; commits nothing, auto commit is off
            } catch (RuntimeException e) {
                log.debug("closing the consumer", e);
            }
        }
        log.info("trainer of job {} stopped{}", job.job(), killRequested ? " (killed)" : "");
    }

    private static void closeQuietly(Producer<String, byte[]> producer, Duration timeout) {
        try {
            producer.close(timeout);
        } catch (RuntimeException e) {
            log.debug("closing the producer", e);
        }
    }
}
