package io.ata.workeragent;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.platform.kafka.KafkaErrors;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker agent: joins the fleet through the consumer group {@code <prefix>workers} on the
 * {@code tasks} topic, runs the assignments it receives and publishes each task's result and
 * timing, as {@code docs/streaming.md} describes. This class is the Kafka plumbing; what to do
 * with an assignment is decided by {@link AssignmentRunner}.
 *
 * <p>Threads: one task thread (the caller of {@link #run()}, or the one {@link #start()}
 * creates) owns the task consumer and the transactional producer and runs the tasks one after
 * another; a {@link TransactionPublisher} thread commits the tasks' transactions (grouping the
 * tasks that finish while a commit is in flight) while the next task computes; a
 * {@link ModelCache} thread follows the model topic; a heartbeat thread sends
 * {@link io.ata.schemas.WorkerHeartbeat}s.
 *
 * <p>An assignment whose model version has not come (a round planned ahead, under pipelined
 * allocation) is parked ({@link ParkedAssignments}), never waited for: the task thread reads on,
 * and the model cache wakes its poll ({@link Consumer#wakeup()}) when that version arrives, so the
 * parked assignment starts as soon as the task thread is free, not after a poll's timeout. One
 * further ahead than {@link AssignmentRunner#PARK_AHEAD} is dead-lettered once it has waited the
 * model wait; one at most that far ahead, once its job looks stopped
 * ({@link AssignmentRunner#stalled}). No partition's offset is committed past a parked record.
 *
 * <p>Lifecycle:
 * <ul>
 *   <li>{@link #close()}: clean shutdown. The running task finishes and is published; the rest of
 *       its assignment is left uncommitted for the partition's next owner. The consumer leaves
 *       the group, then a LEAVING heartbeat is sent, and everything is closed.</li>
 *   <li>{@link #kill()}: a crash, for tests. Stops at once, commits nothing, aborts an open
 *       transaction (so read_committed readers are not held up), sends no LEAVING heartbeat and
 *       does not leave the consumer group: the group notices after {@code session.timeout.ms},
 *       the broker after its liveness timeout.</li>
 *   <li>A fatal error ({@link KafkaErrors#isFatal}: fenced by another agent with the same worker
 *       id, no permission, a broken producer) stops the agent; see {@link #failure()}. Other Kafka
 *       and Schema Registry errors abort the transaction, give the assignment (and the rest of
 *       its poll's records) back to the topic and run it again after a pause; a lost group
 *       membership ({@link KafkaErrors#isGroupMembershipLost}, e.g. after the process was frozen
 *       past its session) without the pause, since the next poll rejoins the group and the other
 *       agents' rebalance waits for that.</li>
 * </ul>
 */
public final class WorkerAgent implements Agent, Runnable, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(WorkerAgent.class);

    static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CLIENT_CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final AgentConfig config;
    private final Topics topics;
    private final AgentCodec codec;
    private final AgentMetrics metrics;
    /** Whether the meters are the agent's own (removed when it stops), not its supervisor's. */
    private final boolean ownsMetrics;

    private final Consumer<byte[], byte[]> consumer;
    private final Producer<String, byte[]> transactional;
    private final Producer<String, byte[]> plain;
    private final ModelCache models;
    /** Model versions before their commit, for the tasks to start on; null if the agent does not start early. */
    private final EarlyModels early;

    private final OwnedPartitions owned;
    private final HeartbeatSender heartbeats;
    private final AssignmentRunner runner;
    private final Workload workload;
    private final TransactionPublisher publisher;
    private final ParkedAssignments parked = new ParkedAssignments();
    private final String payloadPrefix;
    private final AtomicLong payloads = new AtomicLong();

    private final AgentLifecycle lifecycle;

    /** An agent with real Kafka clients; nothing is contacted until {@link #start()} or {@link #run()}. */
    public WorkerAgent(AgentConfig config, SchemaRegistryClient registry) {
        this(config, registry, KafkaClientFactory.KAFKA, Clock.systemUTC());
    }

    /**
     * With client factory and wall clock injected: tests hand in mock clients, the CLI clients bound
     * to its meters.
     */
    public WorkerAgent(AgentConfig config, SchemaRegistryClient registry, KafkaClientFactory clients, Clock clock) {
        this(config, registry, clients, clock, null);
    }

    /**
     * With the meters given too ({@code givenMetrics}, null for its own): a {@link SupervisedAgent} hands
     * each agent it starts the same ones, so they count on across starts over; the agent then leaves
     * them in the registry when it stops, for their owner to remove.
     */
    public WorkerAgent(
            AgentConfig config,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            Clock clock,
            AgentMetrics givenMetrics) {
        this.config = Objects.requireNonNull(config, "config");
        this.lifecycle =
                new AgentLifecycle(config.workerId(), this::joinFleet, this::pollOnce, this::shutdown, () -> {});
        this.topics = new Topics(config.topicPrefix());
        this.codec = new AgentCodec(registry);
        List<AutoCloseable> created = new ArrayList<>();
        try {
            this.consumer = Closing.track(created, clients.consumer(AgentClients.taskConsumer(config)));
            this.transactional = Closing.track(created, clients.producer(AgentClients.transactionalProducer(config)));
            this.plain = Closing.track(created, clients.producer(AgentClients.heartbeatProducer(config)));
            this.models = Closing.track(
                    created,
                    AgentClients.modelCache(
                            config,
                            clients,
                            topics,
                            codec,
                            DeadLetterSink.untransacted(plain, topics, codec, this::countModelDeadLetter),
                            clock));
            this.early = config.earlyStart()
                    ? Closing.track(created, AgentClients.earlyModels(config, clients, topics, codec, models))
                    : null;
        } catch (RuntimeException e) {
            for (AutoCloseable client : created) {
                Closing.quietly(log, "client", client::close);
            }
            throw e;
        }
        this.ownsMetrics = givenMetrics == null;
        this.metrics = ownsMetrics ? new AgentMetrics(config.meterRegistry(), config.workerId()) : givenMetrics;
        this.owned = new OwnedPartitions(topics.tasks().name(), this::announcePartitions, this::dropParked);
        this.models.setVersionListener(this::wakeForParked);
        if (early != null) {
            early.setVersionListener(this::wakeForParked);
        }
        this.metrics.modelsHeld(models::jobs);
        this.workload = config.workload().orElseGet(() -> AgentWorkload.of(config));
        this.heartbeats = new HeartbeatSender(
                plain,
                codec,
                topics.workers(),
                config.workerId(),
                config.host(),
                this::device,
                owned::snapshot,
                "", // a consumer of its own
                clock);
        this.runner = AssignmentRunner.of(
                config, workload, models, codec.decoder(topics.tasks()), metrics, clock, lifecycle::stopRequested);
        if (early != null) {
            runner.setEarlyStart(early);
        }
        this.publisher = TransactionPublisher.forWorker(transactional, config.workerId(), metrics);
        this.payloadPrefix = config.workerId() + "-" + clock.millis() + "-";
    }

    /** Runs the agent on a new thread {@code ata-agent-<workerId>}; returns at once. */
    @Override
    public void start() {
        lifecycle.start("ata-agent-" + workerId());
    }

    /**
     * Runs the agent on the calling thread until {@link #close()}, {@link #kill()} or a fatal
     * error. Use either this or {@link #start()}, once.
     */
    @Override
    public void run() {
        lifecycle.run();
    }

    /** Clean shutdown, waiting up to 30 s; see the class comment. */
    @Override
    public void close() {
        close(DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Clean shutdown: lets the running task finish, then leaves. If that takes longer than
     * {@code timeout}, the task thread is interrupted (the running task is then lost, as in a
     * crash, but the agent still says LEAVING).
     */
    @Override
    public void close(Duration timeout) {
        lifecycle.close(timeout);
    }

    /** Simulates a crash, for tests; see the class comment. Returns once the agent has stopped. */
    @Override
    public void kill() {
        heartbeats.silence(); // not one more heartbeat
        lifecycle.kill(DEFAULT_CLOSE_TIMEOUT);
    }

    /** Waits until the agent has stopped; {@code true} if it has. */
    @Override
    public boolean awaitStopped(Duration timeout) {
        return lifecycle.awaitStopped(timeout);
    }

    @Override
    public String workerId() {
        return config.workerId();
    }

    public AgentConfig config() {
        return config;
    }

    /** What computes the tasks now, for the heartbeat; the device gauges of the metrics follow it. */
    private ComputeDevice device() {
        ComputeDevice now = workload.device();
        metrics.device(now);
        return now;
    }

    public AgentMetrics metrics() {
        return metrics;
    }

    /** How many jobs' models the agent holds now (a job quiet for the model retention is dropped). */
    public int modelsKept() {
        return models.jobs();
    }

    /** The task partitions the agent's consumer owns now (the list its heartbeats carry), ascending. */
    public List<Integer> ownedPartitions() {
        return owned.snapshot();
    }

    /** Whether the agent runs (started and not yet stopped). */
    @Override
    public boolean isRunning() {
        return lifecycle.isRunning();
    }

    /** Why the agent stopped on its own, if it did. */
    @Override
    public Optional<Throwable> failure() {
        return lifecycle.failure();
    }

    /** Initializes transactions, starts heartbeats and the model cache, and joins the group. */
    void joinFleet() {
        transactional.initTransactions();
        heartbeats.start(config.heartbeatInterval());
        models.start("ata-model-cache-" + workerId());
        if (early != null) {
            early.startFollowing("ata-early-models-" + workerId());
        }
        consumer.subscribe(List.of(topics.tasks().name()), owned);
        log.info("agent started: {}", config);
    }

    /**
     * One poll of the tasks topic and the handling of what came, then of the parked assignments
     * whose model version has come. Package-private for tests.
     */
    void pollOnce() throws InterruptedException {
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(POLL_TIMEOUT);
        } catch (WakeupException e) {
            // the model cache woke us: a parked assignment's version came
            records = ConsumerRecords.empty();
        } catch (KafkaException e) {
            if (lifecycle.stopRequested() || KafkaErrors.isFatal(e) || e instanceof InterruptException) {
                throw e;
            }
            log.warn(
                    "polling {} failed, retrying in {}: {}",
                    topics.tasks().name(),
                    config.retryBackoff(),
                    e.toString());
            Thread.sleep(config.retryBackoff().toMillis());
            return;
        }
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        records.forEach(batch::add);
        for (int i = 0; i < batch.size(); i++) {
            if (lifecycle.stopRequested()) {
                return; // not committed: delivered again to whoever owns the partition next
            }
            RuntimeException failure = handle(batch.get(i));
            if (failure != null) {
                // the rest of the batch is given back too, to be run in order after the retry
                giveBack(batch.subList(i, batch.size()));
                // a lost group membership heals in the next poll, which rejoins the group; every
                // other agent waits for that rejoin to finish the rebalance, so no pause then
                if (!KafkaErrors.isGroupMembershipLost(failure)) {
                    Thread.sleep(config.retryBackoff().toMillis());
                }
                return;
            }
        }
        runParked();
    }

    /**
     * Runs the parked assignments whose model version has come, oldest first per partition, and
     * dead-letters those that waited for it too long ({@link AssignmentRunner#overdue}). One that
     * fails stays parked, to run again after the pause (or, if its partition goes meanwhile, to be
     * dropped: its next owner reads it again).
     */
    private void runParked() throws InterruptedException {
        for (ParkedAssignments.Parked p : parked.all()) {
            if (lifecycle.stopRequested()) {
                return; // not committed: delivered again to whoever owns the partition next
            }
            RuntimeException failure;
            Duration waited = p.waited(System.nanoTime());
            if (runner.modelCame(p.assignment())) {
                failure = attempt(p.record(), out -> runner.runParked(p.record(), p.assignment(), out));
            } else if (runner.overdue(p.assignment(), waited)) {
                failure = attempt(p.record(), out -> runner.giveUp(p.record(), p.assignment(), waited, out));
            } else {
                continue;
            }
            if (failure != null) {
                if (!KafkaErrors.isGroupMembershipLost(failure)) {
                    Thread.sleep(config.retryBackoff().toMillis());
                }
                return;
            }
        }
    }

    /**
     * The model cache kept {@code model} as its job's newest: if an assignment is parked for it,
     * wake the task thread's poll so it runs now, not after the poll's timeout. (A version that
     * came between the runner's decision to park and the parking is found by {@link #runParked}
     * after that poll.)
     */
    private void wakeForParked(ModelVersion model) {
        if (parked.awaits(model.getJob(), model.getVersion())) {
            log.debug("job {} model version {} came: waking the task thread", model.getJob(), model.getVersion());
            try {
                consumer.wakeup();
            } catch (RuntimeException e) {
                log.debug("waking the task consumer: {}", e.toString());
            }
        }
    }

    /** Partitions revoked or lost: what was parked of them is dropped, for their next owner to read. */
    private void dropParked(List<TopicPartition> gone) {
        int dropped = parked.forget(gone);
        if (dropped > 0) {
            log.info("dropped {} parked assignment(s) of {}: read again from the committed offset", dropped, gone);
        }
    }

    /**
     * Runs one assignment and publishes its results.
     *
     * @return null if it was done, or the failure that made it be given back to be run again
     */
    private RuntimeException handle(ConsumerRecord<byte[], byte[]> record) throws InterruptedException {
        return attempt(record, out -> runner.handle(record, out));
    }

    /** What the runner does with one record and its output. */
    @FunctionalInterface
    private interface RunnerStep {
        AssignmentRunner.Outcome run(TransactionalOutput out) throws InterruptedException;
    }

    /**
     * Runs {@code step} on {@code record}, its effects in the agent's transactions.
     *
     * @return null if it went through, or the (transient) failure that made it fail
     */
    private RuntimeException attempt(ConsumerRecord<byte[], byte[]> record, RunnerStep step)
            throws InterruptedException {
        // read here, on the only thread that polls: the publisher's thread must not touch the
        // consumer, and the group cannot move on before this thread polls again
        ConsumerGroupMetadata group = consumer.groupMetadata();
        TransactionalOutput out = new TransactionalOutput(
                transactional,
                () -> group,
                topics,
                codec,
                record,
                publisher,
                Chunks.DEFAULT_CHUNK_BYTES,
                this::nextPayloadId,
                parked);
        try {
            step.run(out);
            out.awaitPublished(); // e.g. after a shutdown request between two tasks
            return null;
        } catch (RuntimeException e) {
            publisher.awaitAfter(e);
            if (lifecycle.stopRequested() || KafkaErrors.isFatal(e)) {
                throw e;
            }
            metrics.retry();
            log.warn(
                    "assignment {}-{}@{} failed, running it again {}: {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    KafkaErrors.isGroupMembershipLost(e) ? "once the group is rejoined" : "in " + config.retryBackoff(),
                    e.toString());
            return e;
        }
    }

    /** Makes the next polls deliver {@code records} again, those of partitions still ours. */
    private void giveBack(List<ConsumerRecord<byte[], byte[]>> records) {
        Set<TopicPartition> rewound = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            // each partition goes back to the first of its records not run, and only while ours
            if (rewound.add(partition) && consumer.assignment().contains(partition)) {
                consumer.seek(partition, record.offset());
            }
        }
    }

    /**
     * Names one publication of a chunked result: this agent's id, when it was created and a
     * counter, so no two publications share one, not even across a restart under the same id.
     */
    private String nextPayloadId() {
        return payloadPrefix + payloads.incrementAndGet();
    }

    /** A model record dead-lettered (no offset to commit with it: sent outside the transactions). */
    private void countModelDeadLetter() {
        metrics.deadLetter();
    }

    /** After a rebalance: tell the broker at once which task partitions are ours now. */
    private void announcePartitions() {
        heartbeats.sendAlive();
    }

    /**
     * Releases everything, in an order that keeps the broker's view right: heartbeats are
     * silenced first (leaving the group revokes our partitions, and an ALIVE heartbeat with an
     * empty list must not follow the LEAVING one), the consumer leaves (or, killed, stays until
     * its session times out), and the LEAVING heartbeat is the very last record.
     */
    private void shutdown() {
        boolean crash = lifecycle.killed();
        boolean sayGoodbye = lifecycle.maySayGoodbye();
        heartbeats.silence();
        parked.clear(); // not run, not committed: the partitions' next owners read them again
        Duration timeout = crash ? Duration.ZERO : CLIENT_CLOSE_TIMEOUT;
        // a commit in flight finishes while the partitions are still ours, and before the producer closes
        publisher.close();
        Closing.quietly(log, "task consumer", () -> AgentClients.closeTaskConsumer(consumer, crash, timeout));
        Closing.quietly(log, "model cache", models::close);
        if (early != null) {
            Closing.quietly(log, "early model reader", early::close);
        }
        if (config.workload().isEmpty()) {
            Closing.quietly(log, "workload", workload::close); // the agent's own; a given one is its owner's
        }
        Closing.quietly(log, "transactional producer", () -> transactional.close(timeout));
        if (sayGoodbye) {
            Closing.quietly(log, "LEAVING heartbeat", heartbeats::sendLeaving);
        }
        Closing.quietly(log, "heartbeat producer", () -> plain.close(timeout));
        owned.clear();
        if (ownsMetrics) {
            metrics.unregister();
        }
        lifecycle.stopped();
        log.info("agent {} {}: {}", workerId(), crash ? "killed" : "stopped", metrics);
    }
}
