package io.ata.workeragent;

import io.ata.ml.djl.DeviceChoice;
import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.platform.kafka.KafkaErrors;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
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
 * A worker agent for a node with several compute devices (the GPUs of one machine, say): one
 * worker per device, each a worker of the fleet in its own right (its own id, heartbeats, results
 * and statistics at the broker), over <b>one</b> member of the agents' consumer group on
 * {@code tasks} and one model cache. The workers name that consumer in their heartbeats
 * ({@code task_consumer}) and list all its partitions, so the broker lets them share the
 * partitions and grows the tasks topic by consumers, not workers: a fleet of 8-GPU nodes needs an
 * eighth of the partitions, consumers and model copies that one agent per device would.
 *
 * <p>Threads: the poll thread (the caller of {@link #run()}, or the one {@link #start()} creates)
 * owns the consumer. It hands each assignment to the worker it names ({@link DeviceWorker}), or,
 * an assignment of a worker not here (its partition came from another agent), to the least busy
 * one; and it hands back the parked assignments whose model version came, or that waited too
 * long. Each worker runs what it is handed on a thread of its own, in order, and commits each
 * record's offset in its own transaction. Records of one partition are thus done out of order:
 * every record handed out is held ({@link ParkedAssignments#hold}) and no commit passes a record
 * not done. Reading pauses while the workers hold many records.
 *
 * <p>Workers are named {@code <worker id>-<i>}, {@code i} from 0 in the order of the devices.
 *
 * <p>Lifecycle as {@link WorkerAgent}'s: {@link #close()} lets each worker finish its running task;
 * {@link #kill()} is a crash; a fatal error of any worker (its producer fenced, say) stops the whole
 * agent, see {@link #failure()}.
 */
public final class MultiDeviceAgent implements Agent, Runnable, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MultiDeviceAgent.class);

    static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    private static final Duration CLIENT_CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /** Records read a poll: enough for a round's assignments of every worker, and one planned ahead. */
    static final int MAX_POLL_RECORDS = 100;
    /** Reading pauses while the workers hold this many records each, on average; resumes at one. */
    static final int PAUSE_AT_RECORDS_PER_WORKER = 8;

    private final AgentConfig config;
    private final Topics topics;
    private final AgentCodec codec;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<String, byte[]> plain;
    private final ModelCache models;
    /** Model versions before their commit, one reader for every worker; null if the agent does not start early. */
    private final EarlyModels early;

    private final OwnedPartitions owned;
    private final ParkedAssignments parked = new ParkedAssignments();
    private final List<DeviceWorker> workers;
    private final Map<String, DeviceWorker> byId;
    private final RecordDecoder<TaskAssignment> assignments;
    /** Parked records handed to a worker and not finished: not handed out again meanwhile. */
    private final Set<ParkedKey> parkedHandedOut = ConcurrentHashMap.newKeySet();

    private final AgentLifecycle lifecycle;
    private volatile ConsumerGroupMetadata group;
    private boolean paused; // poll thread only

    private record ParkedKey(TopicPartition partition, long offset) {}

    /**
     * An agent with real Kafka clients and a worker per device; nothing is contacted until
     * {@link #start()} or {@link #run()}.
     */
    public MultiDeviceAgent(AgentConfig config, List<DeviceChoice> devices, SchemaRegistryClient registry) {
        this(config, devices, registry, KafkaClientFactory.KAFKA, Clock.systemUTC(), null);
    }

    /**
     * With client factory, wall clock and meters injected ({@code meters} gives each worker's, by
     * worker id; null: the workers' own, removed when the agent stops).
     *
     * @param config the agent's configuration: its worker id names the consumer and the workers,
     *     the rest is every worker's
     * @param devices one worker per device, in this order
     */
    public MultiDeviceAgent(
            AgentConfig config,
            List<DeviceChoice> devices,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            Clock clock,
            Function<String, AgentMetrics> meters) {
        this.config = Objects.requireNonNull(config, "config");
        this.lifecycle = new AgentLifecycle(
                config.workerId(), this::joinFleet, this::pollOnce, this::shutdown, this::interruptWorkers);
        if (devices.isEmpty()) {
            throw new IllegalArgumentException("a multi-device agent needs at least one device");
        }
        this.topics = new Topics(config.topicPrefix());
        this.codec = new AgentCodec(registry);
        this.assignments = new RecordDecoder<>(codec.decoder(topics.tasks()), "task assignment");
        List<AutoCloseable> created = new ArrayList<>();
        List<DeviceWorker> made = new ArrayList<>();
        try {
            this.consumer =
                    Closing.track(created, clients.consumer(AgentClients.taskConsumer(config, MAX_POLL_RECORDS)));
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
            this.owned = new OwnedPartitions(topics.tasks().name(), this::announcePartitions, this::partitionsGone);
            this.models.setVersionListener(this::wakeForParked);
            if (early != null) {
                early.setVersionListener(this::wakeForParked);
            }
            String consumerName = AgentClients.taskConsumerName(config);
            DeviceWorker.Shared shared = new DeviceWorker.Shared(
                    topics,
                    codec,
                    () -> group,
                    owned,
                    parked,
                    config.retryBackoff(),
                    lifecycle::stopRequested,
                    this::workerFailed,
                    this::finished);
            for (int i = 0; i < devices.size(); i++) {
                AgentConfig worker = config.forWorker(config.workerId() + "-" + i, devices.get(i));
                made.add(newWorker(worker, clients, clock, meters, consumerName, shared, created));
            }
        } catch (RuntimeException e) {
            for (AutoCloseable client : created) {
                Closing.quietly(log, "client", client::close);
            }
            made.forEach(DeviceWorker::unregisterMeters);
            throw e;
        }
        this.workers = List.copyOf(made);
        Map<String, DeviceWorker> ids = new HashMap<>();
        workers.forEach(w -> ids.put(w.workerId(), w));
        this.byId = Map.copyOf(ids);
        // every worker's model gauge reads the one cache
        workers.forEach(w -> w.metrics().modelsHeld(models::jobs));
    }

    private DeviceWorker newWorker(
            AgentConfig worker,
            KafkaClientFactory clients,
            Clock clock,
            Function<String, AgentMetrics> meters,
            String consumerName,
            DeviceWorker.Shared shared,
            List<AutoCloseable> created) {
        Producer<String, byte[]> transactional =
                Closing.track(created, clients.producer(AgentClients.transactionalProducer(worker)));
        boolean ownsMetrics = meters == null;
        AgentMetrics metrics = ownsMetrics
                ? new AgentMetrics(worker.meterRegistry(), worker.workerId())
                : meters.apply(worker.workerId());
        boolean ownsWorkload = worker.workload().isEmpty();
        Workload workload = worker.workload().orElseGet(() -> AgentWorkload.of(worker));
        AssignmentRunner runner = AssignmentRunner.of(
                worker, workload, models, codec.decoder(topics.tasks()), metrics, clock, lifecycle::stopRequested);
        if (early != null) {
            runner.setEarlyStart(early);
        }
        DeviceWorker[] self = new DeviceWorker[1];
        HeartbeatSender heartbeats = new HeartbeatSender(
                plain,
                codec,
                topics.workers(),
                worker.workerId(),
                worker.host(),
                () -> self[0].device(),
                owned::snapshot,
                consumerName,
                clock);
        self[0] = new DeviceWorker(
                worker,
                workload,
                ownsWorkload,
                metrics,
                ownsMetrics,
                transactional,
                heartbeats,
                runner,
                shared,
                clock.millis());
        return self[0];
    }

    /** Runs the agent on a new thread {@code ata-agent-<workerId>-poll}; returns at once. */
    @Override
    public void start() {
        lifecycle.start("ata-agent-" + workerId() + "-poll");
    }

    /**
     * Runs the agent's poll loop on the calling thread until {@link #close()}, {@link #kill()} or a
     * fatal error. Use either this or {@link #start()}, once.
     */
    @Override
    public void run() {
        lifecycle.run();
    }

    /** Initializes the workers' transactions, starts heartbeats, the model cache and the workers, and joins the group. */
    private void joinFleet() {
        group = consumer.groupMetadata();
        models.start("ata-model-cache-" + workerId());
        if (early != null) {
            early.startFollowing("ata-early-models-" + workerId());
        }
        workers.forEach(DeviceWorker::start);
        consumer.subscribe(List.of(topics.tasks().name()), owned);
        log.info("agent started with {} workers ({}): {}", workers.size(), workerIds(), config);
    }

    /** One poll, its records handed out, then the parked assignments that may go. Package-private for tests. */
    void pollOnce() throws InterruptedException {
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(POLL_TIMEOUT);
        } catch (WakeupException e) {
            records = ConsumerRecords.empty(); // the model cache woke us: a parked assignment's version came
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
        } finally {
            group = consumer.groupMetadata(); // a poll woken up may have finished a rebalance too
        }
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            parked.hold(partition, record.offset());
            workerFor(record).give(DeviceWorker.Work.read(record, owned.epoch(record.partition())));
        }
        handOutParked();
        pauseWhileBusy();
    }

    /** The worker an assignment names, if it is here; else (or if it cannot be read) the least busy. */
    private DeviceWorker workerFor(ConsumerRecord<byte[], byte[]> record) {
        Decoded<TaskAssignment> decoded = assignments.decode(record.topic(), record.value());
        if (decoded instanceof Decoded.Valid<TaskAssignment> valid) {
            DeviceWorker named = byId.get(valid.record().getWorkerId());
            if (named != null) {
                return named;
            }
        }
        return leastBusy();
    }

    private DeviceWorker leastBusy() {
        return workers.stream().min(Comparator.comparingInt(DeviceWorker::load)).orElseThrow();
    }

    /** Hands the parked assignments whose version came, or that waited too long, to a worker. */
    private void handOutParked() {
        for (ParkedAssignments.Parked p : parked.all()) {
            ParkedKey key = new ParkedKey(p.partition(), p.record().offset());
            long epoch = owned.epoch(p.record().partition());
            if (epoch < 0) {
                // parked by a worker after its partition went: its next owner reads it again
                parked.forget(List.of(p.partition()));
                continue;
            }
            // a worker marks a parked record done before it says it finished it: one not handed
            // out now and still parked has not been run
            if (parkedHandedOut.contains(key)
                    || !parked.isParked(p.partition(), p.record().offset())) {
                continue;
            }
            DeviceWorker worker = byId.getOrDefault(p.assignment().getWorkerId(), null);
            worker = worker != null ? worker : leastBusy();
            Duration waited = p.waited(System.nanoTime());
            DeviceWorker.Kind kind;
            if (worker.runner().modelCame(p.assignment())) {
                kind = DeviceWorker.Kind.RUN_PARKED;
            } else if (worker.runner().overdue(p.assignment(), waited)) {
                kind = DeviceWorker.Kind.GIVE_UP_PARKED;
            } else {
                continue;
            }
            parkedHandedOut.add(key);
            worker.give(new DeviceWorker.Work(kind, p.record(), epoch, p, waited));
        }
    }

    /** A worker is done with {@code work} (ran it, dropped it, or parked it). */
    private void finished(DeviceWorker.Work work) {
        if (work.kind() != DeviceWorker.Kind.READ) {
            parkedHandedOut.remove(new ParkedKey(work.partition(), work.record().offset()));
        }
    }

    /** Pauses reading while the workers hold many records, so a slow fleet does not read a topic into memory. */
    private void pauseWhileBusy() {
        int held = workers.stream().mapToInt(DeviceWorker::load).sum();
        if (held >= PAUSE_AT_RECORDS_PER_WORKER * workers.size()) {
            // every busy poll: partitions assigned since the last pause come unpaused
            consumer.pause(consumer.assignment());
            if (!paused) {
                log.debug("agent {}: {} records held, reading paused", workerId(), held);
            }
            paused = true;
        } else if (paused && held <= workers.size()) {
            consumer.resume(consumer.paused());
            paused = false;
        }
    }

    /** A parked assignment's version came: wake the poll thread so it hands it out now. */
    private void wakeForParked(ModelVersion model) {
        if (parked.awaits(model.getJob(), model.getVersion())) {
            try {
                consumer.wakeup();
            } catch (RuntimeException e) {
                log.debug("waking the task consumer: {}", e.toString());
            }
        }
    }

    /** Partitions revoked or lost (on the poll thread): what waits or is parked of them is dropped. */
    private void partitionsGone(List<TopicPartition> gone) {
        workers.forEach(w -> w.dropWaiting(gone));
        int dropped = parked.forget(gone);
        parkedHandedOut.removeIf(k -> gone.contains(k.partition()));
        if (dropped > 0) {
            log.info("dropped {} parked assignment(s) of {}: read again from the committed offset", dropped, gone);
        }
    }

    /** A model record dead-lettered: the agent's, counted on its first worker. */
    private void countModelDeadLetter() {
        workers.get(0).metrics().deadLetter();
    }

    /** After a rebalance: every worker tells the broker at once which task partitions it reads now. */
    private void announcePartitions() {
        workers.forEach(w -> w.heartbeats().sendAlive());
    }

    private void interruptWorkers() {
        workers.forEach(DeviceWorker::interrupt);
    }

    /** A worker failed for good: the whole agent stops, with the first failure. */
    private void workerFailed(Throwable e) {
        lifecycle.fail(e);
        consumer.wakeup(); // the poll thread out of its poll now (thread-safe; a no-op once closed)
    }

    /** Clean shutdown, waiting up to 30 s; see the class comment. */
    @Override
    public void close() {
        close(WorkerAgent.DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Clean shutdown: lets each worker's running task finish, then leaves. If that takes longer
     * than {@code timeout}, the threads are interrupted (the running tasks are then lost, as in a
     * crash, but the workers still say LEAVING).
     */
    @Override
    public void close(Duration timeout) {
        lifecycle.close(timeout);
    }

    /** Simulates a crash, for tests: stops at once, commits nothing, says no goodbye, stays in the group. */
    @Override
    public void kill() {
        workers.forEach(w -> w.heartbeats().silence());
        lifecycle.kill(WorkerAgent.DEFAULT_CLOSE_TIMEOUT);
    }

    /** Waits until the agent has stopped; {@code true} if it has. */
    @Override
    public boolean awaitStopped(Duration timeout) {
        return lifecycle.awaitStopped(timeout);
    }

    /** The agent's id: its consumer's, and the stem of its workers' ids. */
    @Override
    public String workerId() {
        return config.workerId();
    }

    /** The ids of its workers, in the order of their devices. */
    @Override
    public List<String> workerIds() {
        return workers.stream().map(DeviceWorker::workerId).toList();
    }

    /** The meters of worker {@code workerId}. */
    public AgentMetrics metrics(String workerId) {
        DeviceWorker worker = byId.get(workerId);
        if (worker == null) {
            throw new IllegalArgumentException("no worker " + workerId + " in agent " + workerId());
        }
        return worker.metrics();
    }

    /** The task partitions the agent's consumer owns now (every worker's heartbeat lists them), ascending. */
    public List<Integer> ownedPartitions() {
        return owned.snapshot();
    }

    /** How many jobs' models the agent holds now, for all its workers. */
    public int modelsKept() {
        return models.jobs();
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

    /**
     * Releases everything, in {@link WorkerAgent}'s order: heartbeats silenced first, the workers
     * end (each finishing its running task unless killed), their commits in flight finish, the
     * consumer leaves (or, killed, stays until its session times out), and the LEAVING heartbeats
     * are the very last records.
     */
    private void shutdown() {
        boolean crash = lifecycle.killed();
        boolean sayGoodbye = lifecycle.maySayGoodbye();
        // the workers heartbeat while they finish their running tasks, as a single agent does
        if (crash) {
            workers.forEach(w -> w.heartbeats().silence());
        }
        joinWorkers(crash);
        workers.forEach(w -> w.heartbeats().silence());
        // what is held stays held: a worker that outlived the joins must not commit past it
        Duration timeout = crash ? Duration.ZERO : CLIENT_CLOSE_TIMEOUT;
        workers.forEach(DeviceWorker::closePublisher);
        Closing.quietly(log, "task consumer", () -> AgentClients.closeTaskConsumer(consumer, crash, timeout));
        Closing.quietly(log, "model cache", models::close);
        if (early != null) {
            Closing.quietly(log, "early model reader", early::close);
        }
        workers.forEach(w -> w.closeClients(timeout));
        if (sayGoodbye) {
            workers.forEach(w -> Closing.quietly(log, "LEAVING heartbeat", w.heartbeats()::sendLeaving));
        }
        Closing.quietly(log, "heartbeat producer", () -> plain.close(timeout));
        owned.clear();
        workers.forEach(DeviceWorker::unregisterMeters);
        lifecycle.stopped();
        log.info(
                "agent {} {}: {}",
                workerId(),
                crash ? "killed" : "stopped",
                workers.stream().map(w -> w.workerId() + ": " + w.metrics()).toList());
    }

    /**
     * Waits for the workers' threads, all together up to the close timeout, then interrupts those
     * still running and waits a little more; a crash interrupts them first, and so does an
     * interrupt of this wait (the close's own timeout passed).
     */
    private void joinWorkers(boolean crash) {
        if (crash) {
            workers.forEach(DeviceWorker::interrupt);
        }
        try {
            long deadline = System.nanoTime() + WorkerAgent.DEFAULT_CLOSE_TIMEOUT.toNanos();
            for (DeviceWorker w : workers) {
                w.join(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            }
            deadline = System.nanoTime() + CLIENT_CLOSE_TIMEOUT.toNanos();
            for (DeviceWorker w : workers) {
                if (!w.join(Duration.ZERO)) {
                    log.warn("agent {}: worker {} still running: interrupting it", workerId(), w.workerId());
                    w.interrupt();
                    w.join(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                }
            }
        } catch (InterruptedException e) {
            workers.forEach(DeviceWorker::interrupt);
        }
    }
}
