package io.ata.workeragent;

import io.ata.platform.kafka.KafkaErrors;
import io.ata.platform.kafka.ProducerUnusableException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes an agent's records in Kafka transactions on a thread of its own, putting everything
 * that waits into one transaction (a group commit).
 *
 * <p>Why: a transaction costs a few broker round trips however little it carries (ending it, the
 * markers a {@code read_committed} reader waits for). An agent whose task computes faster than a
 * commit (a GPU on a small model) would otherwise wait for one commit per task and move a fraction
 * of what Kafka can carry. Here the task thread hands a task's records over and computes on; while
 * one transaction commits, the tasks that finish queue up and go out together in the next. No
 * result waits longer than it would have for the commit in flight, and a slow task still gets a
 * transaction of its own.
 *
 * <p>Exactly-once holds as with a transaction per task: each task's records are all in one
 * transaction, and {@link #publishAndCommit} (the call that commits an assignment's consumed
 * offset) returns only once its transaction, and every one before it, committed. After a failed
 * transaction (aborted) everything still queued is dropped unpublished and the failure is thrown,
 * once, by the next call on the task thread, so no offset is committed past a lost result; the
 * agent runs the assignment again.
 *
 * <p>A transaction whose consumed offsets the group refused because it rebalanced meanwhile (its
 * generation moved on while the records were computed) can be published again as it was, with the
 * group's new metadata, instead of failing: for an agent whose consumer is polled by another thread
 * (a {@link MultiDeviceAgent}), which rejoins the group while its workers compute, so that a fleet
 * change does not make every worker compute its assignment again ({@link #republishingAfterRebalance}).
 * The group metadata is asked for when the offsets are sent, so the supplier can refuse (throw) once
 * the records' partition is no longer the agent's.
 *
 * <p>The queue is bounded in bytes, so a fast agent with large gradients waits for the transport
 * rather than holding many gradients in memory; so is a transaction, so that a reader can read one
 * transaction while the next is written. {@link #publish}, {@link #publishAndCommit} and
 * {@link #await} are meant for one (task) thread.
 */
public final class TransactionPublisher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TransactionPublisher.class);

    /** The default bound of the queue: a few default-sized result records, or one 10M-parameter gradient. */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 64L << 20;

    /**
     * The default bound of one transaction: a read_committed reader sees none of a transaction
     * until it commits, so one large transaction serialises writing and reading, where several
     * smaller ones overlap them; but each transaction has a fixed cost of a few round trips. 8 MiB
     * (two 1M-parameter gradients) beat 4 MiB (one) in 7 interleaved pairs of
     * {@code ata bench-transport --sizes 0.1M,1M --tasks 40 --repeats 5}: median ratio to plain
     * Kafka 0.88 against 0.72 at 1M, 0.80 against 0.75 at 0.1M (README).
     */
    public static final long DEFAULT_MAX_TRANSACTION_BYTES = 8L << 20;

    /** How often a commit that timed out or was interrupted is tried in all before the producer is given up. */
    static final int COMMIT_ATTEMPTS = 3;

    /** How long {@link #close} waits for the publishing thread to end once it interrupted it. */
    private static final Duration INTERRUPTED_EXIT = Duration.ofSeconds(1);

    /** How often one transaction is published again after rebalances refused its offsets. */
    static final int MAX_REPUBLISHES = 3;

    /** How often the group's metadata is looked at while waiting for the consumer to rejoin. */
    private static final Duration REJOIN_CHECK = Duration.ofMillis(20);

    /**
     * Records to publish together, and the consumed offsets to commit with them (none if {@code
     * offsets} is null), as {@code offsets} and {@code group} give them when they are sent (again,
     * if the transaction is published again).
     */
    private record Output(
            List<ProducerRecord<String, byte[]>> records,
            Supplier<Map<TopicPartition, OffsetAndMetadata>> offsets,
            Supplier<ConsumerGroupMetadata> group,
            long bytes) {
        boolean commitsOffsets() {
            return offsets != null;
        }
    }

    private final Producer<String, byte[]> producer;
    private final AgentMetrics metrics;
    private final long maxQueuedBytes;
    private final long maxTransactionBytes;
    /** How long a transaction refused by a rebalance waits for the group's next generation; zero: not republished. */
    private final Duration rejoinWait;
    /** Whether the agent is stopping: a refused transaction stops waiting for the rejoin then. */
    private final BooleanSupplier stopping;

    private final Thread thread;

    private final Object lock = new Object();
    private final ArrayDeque<Output> queue = new ArrayDeque<>(); // guarded by lock
    private long queuedBytes; // guarded by lock
    private boolean committing; // guarded by lock: a transaction is open
    private RuntimeException failure; // guarded by lock: not yet thrown to the task thread
    private boolean closed; // guarded by lock
    private boolean dead; // guarded by lock: the publishing thread ended on an Error

    /**
     * The publishing thread, {@code threadName} (a daemon), starts with the first output.
     *
     * @param producer a producer with {@code transactional.id}, transactions initialised (or to be
     *     initialised before the first call); only this publisher begins and ends its transactions
     * @param maxQueuedBytes {@link #publish} waits while this many bytes of records wait
     * @param maxTransactionBytes a transaction takes queued outputs while their records fit this
     *     many bytes (at least one output, however large)
     * @param metrics counts the transactions committed and aborted
     */
    public TransactionPublisher(
            Producer<String, byte[]> producer,
            String threadName,
            long maxQueuedBytes,
            long maxTransactionBytes,
            AgentMetrics metrics) {
        this(producer, threadName, maxQueuedBytes, maxTransactionBytes, Duration.ZERO, () -> false, metrics);
    }

    private TransactionPublisher(
            Producer<String, byte[]> producer,
            String threadName,
            long maxQueuedBytes,
            long maxTransactionBytes,
            Duration rejoinWait,
            BooleanSupplier stopping,
            AgentMetrics metrics) {
        this.rejoinWait = Objects.requireNonNull(rejoinWait, "rejoinWait");
        this.stopping = Objects.requireNonNull(stopping, "stopping");
        this.producer = Objects.requireNonNull(producer, "producer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        if (maxQueuedBytes < 1) {
            throw new IllegalArgumentException("maxQueuedBytes must be >= 1, was " + maxQueuedBytes);
        }
        this.maxQueuedBytes = maxQueuedBytes;
        if (maxTransactionBytes < 1) {
            throw new IllegalArgumentException("maxTransactionBytes must be >= 1, was " + maxTransactionBytes);
        }
        this.maxTransactionBytes = maxTransactionBytes;
        this.thread = new Thread(this::publishUntilClosed, threadName);
        thread.setDaemon(true);
    }

    /** The publisher of worker {@code workerId}, default bounds, thread {@code ata-agent-<workerId>-commit}. */
    static TransactionPublisher forWorker(Producer<String, byte[]> producer, String workerId, AgentMetrics metrics) {
        return new TransactionPublisher(
                producer,
                "ata-agent-" + workerId + "-commit",
                DEFAULT_MAX_QUEUED_BYTES,
                DEFAULT_MAX_TRANSACTION_BYTES,
                metrics);
    }

    /**
     * This publisher's producer, bounds and meters, but a transaction whose offsets a rebalance
     * refused (its commit failed as {@link KafkaErrors#isGroupMembershipLost}) is published again,
     * as it was, once the group's metadata moved to a new generation or member id, at most
     * {@value #MAX_REPUBLISHES} times and waiting {@code rejoinWait} in all; then it fails as before,
     * as it does at once once {@code stopping} says so (the consumer no longer polls to rejoin) or
     * the publisher is closed. Only for offsets whose metadata another thread's polls keep fresh: a
     * consumer polled by the publishing caller itself cannot rejoin while the caller waits. Call
     * before the first output.
     */
    TransactionPublisher republishingAfterRebalance(Duration rejoinWait, BooleanSupplier stopping) {
        if (rejoinWait.isNegative() || rejoinWait.isZero()) {
            throw new IllegalArgumentException("rejoinWait must be positive, was " + rejoinWait);
        }
        return new TransactionPublisher(
                producer, thread.getName(), maxQueuedBytes, maxTransactionBytes, rejoinWait, stopping, metrics);
    }

    /**
     * Queues {@code records} for the next transaction and returns (after waiting for room in the
     * queue, if it is full).
     *
     * @throws RuntimeException the failure of an earlier transaction not thrown before; then
     *     {@code records} are not published
     * @throws InterruptException if interrupted while waiting for room
     */
    public void publish(List<ProducerRecord<String, byte[]>> records) {
        enqueue(new Output(List.copyOf(records), null, null, bytesOf(records)));
    }

    /**
     * Publishes {@code records} with the consumed {@code offsets} of {@code group} (as
     * {@code sendOffsetsToTransaction}) and returns once they, and everything queued before them,
     * are committed.
     *
     * @throws RuntimeException the failure of this transaction or an earlier one
     * @throws InterruptException if interrupted while waiting (the transaction goes on)
     */
    public void publishAndCommit(
            List<ProducerRecord<String, byte[]>> records,
            Map<TopicPartition, OffsetAndMetadata> offsets,
            ConsumerGroupMetadata group) {
        if (offsets.isEmpty()) {
            enqueue(new Output(List.copyOf(records), null, null, bytesOf(records)));
            await();
            return;
        }
        Objects.requireNonNull(group, "group");
        Map<TopicPartition, OffsetAndMetadata> fixed = Map.copyOf(offsets);
        publishAndCommit(records, () -> fixed, () -> group);
    }

    /**
     * As {@link #publishAndCommit(List, Map, ConsumerGroupMetadata)}, with the offsets and the
     * group's metadata as {@code offsets} and {@code group} give them when they are sent (again, if
     * the transaction is published again), on the publishing thread: they must be thread-safe and
     * must not call the consumer. What they throw fails the transaction.
     */
    public void publishAndCommit(
            List<ProducerRecord<String, byte[]>> records,
            Supplier<Map<TopicPartition, OffsetAndMetadata>> offsets,
            Supplier<ConsumerGroupMetadata> group) {
        enqueue(new Output(
                List.copyOf(records),
                Objects.requireNonNull(offsets, "offsets"),
                Objects.requireNonNull(group, "group"),
                bytesOf(records)));
        await();
    }

    /**
     * Waits until everything queued is committed.
     *
     * @throws RuntimeException the failure of a transaction not thrown before (once: the next call
     *     returns normally)
     * @throws InterruptException if interrupted while waiting (the transactions go on)
     */
    public void await() {
        synchronized (lock) {
            while (failure == null && !dead && (committing || !queue.isEmpty())) {
                waitOnLock();
            }
            throwFailure();
        }
    }

    /**
     * After {@code failure} of an attempt, waits for what the publisher still holds, if anything,
     * so that the retry's transactions follow it. Its own failure is added to {@code failure}, or
     * thrown instead if it is fatal and {@code failure} is not (the agent must stop, not retry).
     */
    public void awaitAfter(RuntimeException failure) {
        try {
            await();
        } catch (RuntimeException e) {
            if (e == failure) {
                return;
            }
            if (KafkaErrors.isFatal(e) && !KafkaErrors.isFatal(failure)) {
                e.addSuppressed(failure);
                throw e;
            }
            failure.addSuppressed(e);
        }
    }

    /** Whether something is queued or committing now. */
    boolean busy() {
        synchronized (lock) {
            return committing || !queue.isEmpty();
        }
    }

    private void enqueue(Output output) {
        synchronized (lock) {
            // wait for room, but never refuse an output larger than the bound: it goes alone
            while (failure == null
                    && !dead
                    && !closed
                    && !queue.isEmpty()
                    && queuedBytes + output.bytes() > maxQueuedBytes) {
                waitOnLock();
            }
            throwFailure();
            if (closed) {
                throw new IllegalStateException("the publisher is closed");
            }
            if (thread.getState() == Thread.State.NEW) {
                thread.start();
            }
            queue.add(output);
            queuedBytes += output.bytes();
            lock.notifyAll();
        }
    }

    /** Throws the failure not yet thrown, if any, or that the publishing thread died. Holds the lock. */
    private void throwFailure() {
        if (dead && failure == null) {
            throw new IllegalStateException("the publishing thread died; see the log");
        }
        RuntimeException f = failure;
        if (f != null) {
            failure = null;
            throw f;
        }
    }

    private void waitOnLock() {
        try {
            lock.wait();
        } catch (InterruptedException e) {
            throw new InterruptException(e); // Kafka's own: restores the interrupt flag
        }
    }

    /** The publishing thread: one transaction for whatever waits, until closed and drained. */
    private void publishUntilClosed() {
        while (true) {
            List<Output> batch;
            synchronized (lock) {
                while (queue.isEmpty() && !closed) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        if (closed) {
                            return; // close() interrupts after its timeout: stop
                        }
                    }
                }
                if (queue.isEmpty()) {
                    return; // closed and drained
                }
                batch = new ArrayList<>();
                long bytes = 0;
                // at least one output; more while they fit the transaction's bound
                while (!queue.isEmpty()
                        && (batch.isEmpty() || bytes + queue.peek().bytes() <= maxTransactionBytes)) {
                    Output next = queue.poll();
                    batch.add(next);
                    bytes += next.bytes();
                }
                queuedBytes -= bytes;
                committing = true;
                lock.notifyAll(); // room in the queue
            }
            RuntimeException failed = null;
            Error died = null;
            try {
                commitRepublishingAfterRebalance(batch);
            } catch (RuntimeException e) {
                failed = e;
            } catch (Error e) {
                // e.g. out of memory: the thread ends, and every call says so rather than waiting for it
                died = e;
                failed = new IllegalStateException("the publishing thread died: " + e, e);
            }
            synchronized (lock) {
                committing = false;
                dead |= died != null;
                if (failed != null) {
                    if (failure != null) {
                        failed.addSuppressed(failure);
                    }
                    failure = failed;
                    // what waits was to follow the failed transaction: not published, so no offset
                    // is committed past a lost result
                    queue.clear();
                    queuedBytes = 0;
                }
                lock.notifyAll();
            }
            if (died != null) {
                throw died;
            }
        }
    }

    /**
     * Commits {@code batch}; if a rebalance refused its offsets and this publisher republishes,
     * the same batch again once the group has moved on (see {@link #republishingAfterRebalance}).
     */
    private void commitRepublishingAfterRebalance(List<Output> batch) {
        long deadline = System.nanoTime() + rejoinWait.toNanos(); // one budget for the batch
        for (int republished = 0; ; republished++) {
            Map<Output, ConsumerGroupMetadata> sentWith = new IdentityHashMap<>();
            try {
                commit(batch, sentWith);
                return;
            } catch (RuntimeException e) {
                if (rejoinWait.isZero()
                        || republished >= MAX_REPUBLISHES
                        || sentWith.isEmpty()
                        || KafkaErrors.isFatal(e)
                        || !KafkaErrors.isGroupMembershipLost(e)
                        || !awaitRejoined(sentWith, deadline, e)) {
                    throw e;
                }
                metrics.transactionRepublished();
                log.info(
                        "{}: a rebalance refused a transaction's offsets ({}); publishing it again in the group's"
                                + " new generation, nothing computed again",
                        thread.getName(),
                        e.toString());
            }
        }
    }

    /**
     * Waits until {@code deadline} (nano time) for the group's metadata of every output in {@code
     * sentWith} to differ from what it was sent with (the consumer rejoined).
     *
     * @return false if it did not, or the agent is stopping or the publisher closing
     * @throws RuntimeException what a supplier throws (its partition gone), {@code failure} suppressed
     */
    private boolean awaitRejoined(
            Map<Output, ConsumerGroupMetadata> sentWith, long deadline, RuntimeException failure) {
        while (true) {
            synchronized (lock) {
                if (closed) {
                    return false;
                }
            }
            if (stopping.getAsBoolean()) {
                return false;
            }
            boolean rejoined = true;
            for (Map.Entry<Output, ConsumerGroupMetadata> sent : sentWith.entrySet()) {
                ConsumerGroupMetadata now;
                try {
                    now = sent.getKey().group().get();
                } catch (RuntimeException e) {
                    e.addSuppressed(failure);
                    throw e;
                }
                rejoined &= !sameMembership(now, sent.getValue());
            }
            if (rejoined) {
                return true;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            try {
                Thread.sleep(REJOIN_CHECK.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static boolean sameMembership(ConsumerGroupMetadata a, ConsumerGroupMetadata b) {
        return a.generationId() == b.generationId() && a.memberId().equals(b.memberId());
    }

    /**
     * One transaction with every output of {@code batch}, in order; the group metadata each
     * output's offsets were sent with goes to {@code sentWith}.
     */
    private void commit(List<Output> batch, Map<Output, ConsumerGroupMetadata> sentWith) {
        try {
            producer.beginTransaction();
        } catch (RuntimeException e) {
            // it does not block and nothing is open: a producer in an error state Kafka left it in
            throw new ProducerUnusableException("cannot begin a transaction", e);
        }
        try {
            for (Output output : batch) {
                for (ProducerRecord<String, byte[]> record : output.records()) {
                    producer.send(record);
                }
                if (output.commitsOffsets()) {
                    // the offsets first: past what is done now, which a retry may have moved on
                    Map<TopicPartition, OffsetAndMetadata> offsets =
                            output.offsets().get();
                    ConsumerGroupMetadata group = output.group().get();
                    sentWith.put(output, group);
                    producer.sendOffsetsToTransaction(offsets, group);
                }
            }
        } catch (RuntimeException e) {
            abortUnlessForbidden(e);
            throw e;
        }
        commitRetryingCutShort();
        metrics.transactionCommitted();
    }

    /**
     * Commits the open transaction. A commit that timed out or was interrupted (close() gave up
     * waiting) may still complete on the broker, so Kafka allows only the same call again, never an
     * abort: it is tried up to {@link #COMMIT_ATTEMPTS} times in all, an interrupt cleared for the
     * retry and restored after; after that the producer is unusable (a {@link
     * ProducerUnusableException}, thrown without an abort). Any other failure aborts.
     */
    private void commitRetryingCutShort() {
        boolean interrupted = false;
        try {
            for (int attempt = 1; ; attempt++) {
                try {
                    producer.commitTransaction();
                    return;
                } catch (RuntimeException e) {
                    if (!(e instanceof TimeoutException || e instanceof InterruptException)) {
                        abortUnlessForbidden(e);
                        throw e;
                    }
                    interrupted |= Thread.interrupted() || e instanceof InterruptException;
                    if (attempt >= COMMIT_ATTEMPTS) {
                        throw new ProducerUnusableException("the commit was cut short " + attempt + " times", e);
                    }
                    log.warn(
                            "a transaction commit was cut short (attempt {} of {}), trying again: {}",
                            attempt,
                            COMMIT_ATTEMPTS,
                            e.toString());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Aborts the open transaction after {@code cause}, unless Kafka forbids it ({@link
     * KafkaErrors#forbidsAbort}: fenced or refused). Any other cause, a bug of ours included,
     * aborts: a transaction left open would hold up the job's read_committed readers until it
     * timed out.
     */
    private void abortUnlessForbidden(RuntimeException cause) {
        if (!KafkaErrors.forbidsAbort(cause)) {
            abort(cause);
        }
    }

    /**
     * Aborts the open transaction after {@code cause}, so read_committed readers are not held up
     * until it times out. Clears a pending interrupt for the time of the call and restores it.
     */
    private void abort(RuntimeException cause) {
        boolean interrupted = Thread.interrupted();
        try {
            producer.abortTransaction();
            metrics.transactionAborted();
        } catch (RuntimeException e) {
            log.error("cannot abort the transaction after {}: {}", cause.toString(), e.toString());
            ProducerUnusableException broken = new ProducerUnusableException("cannot abort", e);
            broken.addSuppressed(cause);
            throw broken;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static long bytesOf(List<ProducerRecord<String, byte[]>> records) {
        long bytes = 0;
        for (ProducerRecord<String, byte[]> r : records) {
            bytes += r.value() == null ? 0 : r.value().length;
        }
        return bytes;
    }

    /**
     * Publishes what is queued (an interrupted agent still commits, so no transaction is left open
     * to hold up {@code read_committed} readers) and ends the thread, waiting at most
     * {@code timeout}. A failure nobody will be told of any more is logged.
     */
    public void close(Duration timeout) {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        boolean interrupted = Thread.interrupted();
        try {
            if (thread.getState() == Thread.State.NEW) {
                return; // never started: nothing to publish
            }
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeout.toNanos())));
            if (thread.isAlive()) {
                log.warn("publishing did not finish within {}", timeout);
                thread.interrupt();
                // the interrupted call returns, and its transaction is settled (a commit tried again,
                // an abort after a send) in a round trip or so: wait a little for that, so the caller
                // does not close the producer under it; a broker that does not answer is not waited for
                thread.join(INTERRUPTED_EXIT.toMillis());
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (lock) {
            if (failure != null) {
                log.warn("the last transaction failed: {}", failure.toString());
                failure = null;
            }
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }
}
