package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * transaction per round. When round k completes, one transaction publishes model version k (in
 * slices if it is large), the optimizer's state after it, {@code CLOSED k}, {@code OPENED k+1},
 * the evaluations scored since the last one, the dead letters of the round, and the consumer
 * offsets of every gradient read so far. Either all of that is visible or none of it is. Nothing is committed
 * while a round is open, so a trainer that dies while round k is open leaves model version k-1 and
 * the group's offsets where round k-1 ended: its successor resumes from that version and its
 * optimizer state (see {@link TrainerState}), reads the gradients again from those offsets, and so
 * sees the open round's results again and none of a closed round's.
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
 * offsets (with back-off; after {@value TrainingLoop#MAX_CONSECUTIVE_FAILURES} errors without a
 * round closed in between, the trainer stops). Being fenced by a newer trainer with the same
 * transactional id, or an authorization error, stops it at once: a trainer never fights back for
 * its job. See {@link #failure()}.
 *
 * <p>Threads: {@link #start()} runs the loop on a thread of its own ({@link #run()} runs it on the
 * caller's). {@link #metrics()}, {@link #awaitRounds}, {@link #close()} and {@link #kill()} may be
 * called from any thread.
 *
 * <p>The parts: this class is the lifecycle (start, stop, wait, failure). The loop is
 * {@link TrainingLoop}; a round's transaction is {@link TransitionPublisher}'s, what it publishes
 * {@link TransitionRecords}'; start-up and recovery are {@link JobRecovery}'s; the clients'
 * settings {@link TrainerClients}'. Its meters ({@link TrainerMetrics}) go to the registry of
 * {@link TrainerConfig#meterRegistry()}.
 */
public final class Trainer implements Runnable, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    /** How long {@link #close()} and {@link #kill()} wait for the trainer to stop. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    private final TrainerConfig config;
    private final String job;
    private final JobProgress progress = new JobProgress();
    private final TrainerMetrics metrics;
    private final StopRequest stop = new StopRequest();
    private final TrainingLoop loop;

    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Throwable failure;
    private volatile Thread thread;

    /** A trainer of {@code config}'s job, with record schemas in {@code registry}. Call {@link #start()}. */
    public Trainer(TrainerConfig config, SchemaRegistryClient registry) {
        this(config, registry, KafkaClientFactory.KAFKA);
    }

    /** With other Kafka clients: tests hand in mock clients, the CLI clients bound to its meters. */
    public Trainer(TrainerConfig config, SchemaRegistryClient registry, KafkaClientFactory clients) {
        this(config, registry, clients, SharedClients.NONE);
    }

    /** With clients a {@link TrainerHost} shares among its trainers: its reader of gradients, its producer. */
    Trainer(TrainerConfig config, SchemaRegistryClient registry, KafkaClientFactory clients, SharedClients shared) {
        Objects.requireNonNull(shared, "shared");
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(clients, "clients");
        this.job = config.job();
        this.metrics = new TrainerMetrics(config.meterRegistry(), job, progress);
        this.loop = new TrainingLoop(config, registry, clients, shared, metrics, progress, stop);
    }

    /**
     * Runs the trainer on a new thread named {@code ata-trainer-<job>} and returns at once.
     *
     * @throws IllegalStateException if it was started (or run) before
     */
    public Trainer start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("trainer of job " + job + " was already started");
        }
        Thread t = new Thread(this::trainThenStop, "ata-trainer-" + job);
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
            throw new IllegalStateException("trainer of job " + job + " was already started");
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

    /**
     * Closes {@code trainers} cleanly, all at once: every stop is requested before any is waited
     * for, so many trainers of one process stop in about the time of one (closing them one after
     * another waits for each one's transaction and producer in turn).
     */
    public static void closeAll(Collection<Trainer> trainers) {
        trainers.forEach(t -> t.stop.request(false));
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        for (Trainer t : trainers) {
            t.awaitStopped(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    private void stop(boolean kill) {
        stop.request(kill);
        awaitStopped(CLOSE_TIMEOUT);
    }

    /** After a stop request: waits for the thread to end (not when called on it, or if it never ran). */
    private void awaitStopped(Duration timeout) {
        if (!started.get()) {
            metrics.unregister(); // never ran; should it start later, it stops at once
            return;
        }
        if (Thread.currentThread() == thread) {
            return; // called by a listener on the trainer thread: it stops on return
        }
        try {
            if (!stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                log.warn("trainer of job {} did not stop within {}", job, CLOSE_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until the job's last closed round (its model version) is at least {@code rounds}.
     * Counts rounds closed by earlier trainers of the job too, so after a restart it waits for
     * the job, not for this instance.
     *
     * @return true once reached; false on timeout, or if the trainer stopped before
     */
    public boolean awaitRounds(long rounds, Duration timeout) throws InterruptedException {
        return progress.awaitModelVersion(rounds, timeout);
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

    private void trainThenStop() {
        try {
            if (!stop.stopping()) {
                loop.run();
            }
        } catch (Throwable t) {
            if (stop.stopping()) {
                log.debug("trainer of job {} stopping: {}", job, t.toString());
            } else {
                failure = t;
                log.error("trainer of job {} failed", job, t);
            }
        } finally {
            loop.shutdown();
            metrics.unregister();
            log.info("trainer of job {} stopped{}", job, stop.killed() ? " (killed)" : "");
            progress.ended();
            stopped.countDown();
        }
    }
}
