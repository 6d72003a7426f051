package io.ata.workeragent;

import io.ata.platform.kafka.KafkaErrors;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker of a {@link MultiDeviceAgent}: a device, its worker id, and what runs the assignments
 * the agent's consumer hands it, one after another on a thread of its own. Its results, timings and
 * task dead letters go out in the transactions of a producer of its own (transactional id
 * {@code <prefix>agent-<workerId>}), each committing the consumed offset of its record with the
 * shared consumer's group metadata, as a single agent's do; so a failed transaction loses only this
 * worker's work, which it runs again, and a worker whose producer is fenced fences nobody else.
 *
 * <p>The agent's poll thread rejoins the group while the workers compute, so a rebalance (an agent
 * joining or leaving the fleet) refuses the offsets of the transactions then committing: those are
 * published again, as they were, in the group's new generation ({@link
 * TransactionPublisher#republishingAfterRebalance}), not computed again, as long as the partition
 * stayed the agent's.
 *
 * <p>A record whose partition the agent no longer owns is dropped, not run or committed (its next
 * owner reads it from the committed offset): checked before it starts, before its offset is
 * committed (after reading the group metadata, so a commit carries a generation in which the
 * partition was ours), and after a failed attempt.
 */
final class DeviceWorker {

    private static final Logger log = LoggerFactory.getLogger(DeviceWorker.class);
    private static final Duration TAKE_TIMEOUT = Duration.ofMillis(200);
    /**
     * How long in all a transaction a rebalance refused waits for the group's next generation
     * before its assignment is run again: a rebalance lasts until every member rejoined (a single
     * agent rejoins between two assignments), while the worker's held record keeps its siblings'
     * commits of that partition behind it.
     */
    static final Duration REJOIN_WAIT = Duration.ofSeconds(30);

    /** What to do with a record: run it as read, or run or give up a parked assignment. */
    enum Kind {
        READ,
        RUN_PARKED,
        GIVE_UP_PARKED
    }

    /**
     * A record handed to this worker, the ownership of its partition it was read or handed out
     * under ({@link OwnedPartitions#epoch}), and for a parked one, what was parked and how long it
     * waited.
     */
    record Work(
            Kind kind,
            ConsumerRecord<byte[], byte[]> record,
            long epoch,
            ParkedAssignments.Parked parked,
            Duration waited) {
        Work {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(record, "record");
        }

        static Work read(ConsumerRecord<byte[], byte[]> record, long epoch) {
            return new Work(Kind.READ, record, epoch, null, Duration.ZERO);
        }

        TopicPartition partition() {
            return new TopicPartition(record.topic(), record.partition());
        }
    }

    /** The offset of a record's partition is not committed: the partition is no longer the agent's. */
    static final class PartitionGoneException extends RuntimeException {
        PartitionGoneException(TopicPartition partition) {
            super("task partition " + partition + " is no longer ours");
        }
    }

    /** What the worker shares with the agent's other workers. */
    record Shared(
            Topics topics,
            AgentCodec codec,
            Supplier<ConsumerGroupMetadata> group,
            OwnedPartitions owned,
            ParkedAssignments parked,
            Duration retryBackoff,
            Supplier<Boolean> stopRequested,
            Consumer<Throwable> failed,
            Consumer<Work> finished) {}

    private final AgentConfig config;
    private final Workload workload;
    private final boolean ownsWorkload;
    private final AgentMetrics metrics;
    private final boolean ownsMetrics;
    private final Producer<String, byte[]> transactional;
    private final TransactionPublisher publisher;
    private final HeartbeatSender heartbeats;
    private final AssignmentRunner runner;
    private final Shared shared;
    private final LinkedBlockingDeque<Work> queue = new LinkedBlockingDeque<>();
    private final String payloadPrefix;
    private final AtomicLong payloads = new AtomicLong();
    private final Thread thread;
    private volatile Work running;

    /**
     * @param config this worker's configuration (its id and device)
     * @param workload what computes its tasks (closed with the worker if {@code ownsWorkload})
     * @param metrics its meters (removed with the worker if {@code ownsMetrics})
     * @param transactional its transactional producer, transactions not yet initialized
     * @param heartbeats its heartbeats
     * @param runner what runs its assignments
     * @param shared the agent's parts it uses
     */
    DeviceWorker(
            AgentConfig config,
            Workload workload,
            boolean ownsWorkload,
            AgentMetrics metrics,
            boolean ownsMetrics,
            Producer<String, byte[]> transactional,
            HeartbeatSender heartbeats,
            AssignmentRunner runner,
            Shared shared,
            long createdMs) {
        this.config = Objects.requireNonNull(config, "config");
        this.workload = Objects.requireNonNull(workload, "workload");
        this.ownsWorkload = ownsWorkload;
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.ownsMetrics = ownsMetrics;
        this.transactional = Objects.requireNonNull(transactional, "transactional");
        this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeats");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.shared = Objects.requireNonNull(shared, "shared");
        this.publisher = TransactionPublisher.forWorker(transactional, config.workerId(), metrics)
                .republishingAfterRebalance(
                        REJOIN_WAIT, () -> shared.stopRequested().get());
        this.payloadPrefix = config.workerId() + "-" + createdMs + "-";
        this.thread = new Thread(this::runUntilStopped, "ata-agent-" + config.workerId());
        thread.setDaemon(true);
    }

    String workerId() {
        return config.workerId();
    }

    AgentConfig config() {
        return config;
    }

    AgentMetrics metrics() {
        return metrics;
    }

    AssignmentRunner runner() {
        return runner;
    }

    HeartbeatSender heartbeats() {
        return heartbeats;
    }

    /** What computes its tasks now, for its heartbeats; its device gauges follow it. */
    ComputeDevice device() {
        ComputeDevice now = workload.device();
        metrics.device(now);
        return now;
    }

    /** Initializes its producer's transactions and starts its heartbeats and its thread. */
    void start() {
        transactional.initTransactions();
        heartbeats.start(config.heartbeatInterval());
        thread.start();
    }

    /** Hands it {@code work}, run after what it holds. */
    void give(Work work) {
        queue.add(work);
    }

    /** How many records it holds, the one running included: the agent gives new ones to the least busy. */
    int load() {
        return queue.size() + (running == null ? 0 : 1);
    }

    /** Drops what waits of partitions {@code gone}: their next owner reads it again. */
    void dropWaiting(List<TopicPartition> gone) {
        queue.removeIf(w -> {
            boolean drop = gone.contains(w.partition());
            if (drop) {
                shared.finished().accept(w);
            }
            return drop;
        });
    }

    void interrupt() {
        thread.interrupt();
    }

    /** Waits up to {@code timeout} for its thread to end; true if it has. */
    boolean join(Duration timeout) throws InterruptedException {
        thread.join(Math.max(1, timeout.toMillis()));
        return !thread.isAlive();
    }

    private void runUntilStopped() {
        try {
            while (!shared.stopRequested().get()) {
                Work work = queue.poll(TAKE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                if (work == null) {
                    continue;
                }
                running = work;
                try {
                    runUntilDoneOrGone(work);
                } finally {
                    running = null;
                    shared.finished().accept(work);
                }
            }
        } catch (InterruptedException e) {
            if (!shared.stopRequested().get()) {
                shared.failed().accept(e);
            }
        } catch (Throwable e) {
            if (!shared.stopRequested().get()) {
                log.error("worker {} failed", workerId(), e);
                shared.failed().accept(e);
            }
        }
    }

    /** Runs {@code work}, again after a transient failure, until it went through or its partition is gone. */
    private void runUntilDoneOrGone(Work work) throws InterruptedException {
        while (!shared.stopRequested().get() && stillOurs(work)) {
            RuntimeException failure = attempt(work);
            if (failure == null) {
                return;
            }
            if (!stillOurs(work)) {
                log.info("worker {}: {} dropped, for its partition's next owner", workerId(), describe(work));
                return;
            }
            // a lost group membership heals in the agent's next poll, which rejoins the group
            if (!KafkaErrors.isGroupMembershipLost(failure)) {
                Thread.sleep(shared.retryBackoff().toMillis());
            }
        }
    }

    /**
     * Whether the partition of {@code work} is still owned as it was when the work was handed out:
     * not since lost, even if given back (its records are then read, held and handed out again).
     */
    private boolean stillOurs(Work work) {
        return shared.owned().epoch(work.record().partition()) == work.epoch();
    }

    /**
     * Runs {@code work} once, its effects in this worker's transactions.
     *
     * @return null if it went through, or the transient failure that made it fail
     */
    private RuntimeException attempt(Work work) throws InterruptedException {
        TopicPartition partition = work.partition();
        TransactionalOutput out = new TransactionalOutput(
                transactional,
                () -> {
                    // read the metadata first: a generation in which the partition was still ours
                    ConsumerGroupMetadata group = shared.group().get();
                    if (!stillOurs(work)) {
                        throw new PartitionGoneException(partition);
                    }
                    return group;
                },
                shared.topics(),
                shared.codec(),
                work.record(),
                publisher,
                Chunks.DEFAULT_CHUNK_BYTES,
                () -> payloadPrefix + payloads.incrementAndGet(),
                shared.parked());
        try {
            switch (work.kind()) {
                case READ -> runner.handle(work.record(), out);
                case RUN_PARKED -> {
                    // its version came when handed out, but a model quiet past the retention is forgotten
                    if (runner.modelCame(work.parked().assignment())) {
                        runner.runParked(work.record(), work.parked().assignment(), out);
                    }
                }
                case GIVE_UP_PARKED ->
                    runner.giveUp(work.record(), work.parked().assignment(), work.waited(), out);
            }
            out.awaitPublished();
            return null;
        } catch (RuntimeException e) {
            publisher.awaitAfter(e);
            if (e instanceof PartitionGoneException) {
                return e; // not a failure: the caller drops the work for the partition's next owner
            }
            if (shared.stopRequested().get() || KafkaErrors.isFatal(e)) {
                throw e;
            }
            metrics.retry();
            log.warn(
                    "worker {}: {} failed, running it again {}: {}",
                    workerId(),
                    describe(work),
                    KafkaErrors.isGroupMembershipLost(e) ? "once the group is rejoined" : "in " + shared.retryBackoff(),
                    e.toString());
            return e;
        }
    }

    private static String describe(Work work) {
        ConsumerRecord<byte[], byte[]> r = work.record();
        return "assignment " + r.topic() + "-" + r.partition() + "@" + r.offset();
    }

    /** Closes its publisher (a commit in flight finishes first), before the consumer leaves. */
    void closePublisher() {
        publisher.close();
    }

    /** Closes its producer and, if its own, its workload. */
    void closeClients(Duration timeout) {
        if (ownsWorkload) {
            Closing.quietly(log, "workload", workload::close);
        }
        Closing.quietly(log, "transactional producer", () -> transactional.close(timeout));
    }

    /** Removes its meters, if its own. */
    void unregisterMeters() {
        if (ownsMetrics) {
            metrics.unregister();
        }
    }
}
