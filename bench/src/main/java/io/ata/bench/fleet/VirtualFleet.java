package io.ata.bench.fleet;

import io.ata.platform.Threads;
import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.AssignmentListener;
import io.ata.workeragent.ModelCache;
import io.ata.workloads.TaskSeed;
import io.ata.workloads.time.TimeSchedule;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One process that behaves as {@code N} worker agents on real Kafka clients and real records: each
 * virtual agent has a worker id of its own, heartbeats with the task partitions it owns, runs the
 * assignments of its partitions one task after another, each task as long as its time schedule
 * draws (the scenario files' schedules: changes, hangs, joins and leaves), and publishes a tiny
 * gradient (zeros of the model's dimension, nothing computed) and a timing per task in
 * transactions with the consumed offsets, as a real agent does. A round closed under a running task
 * cancels it (a CANCELLED result with the time worked); an assignment of a closed round is skipped;
 * one a model version or two ahead (pipelined allocation) is parked until the version comes, as a
 * real agent parks it.
 *
 * <p>What is shared, where Kafka allows it: {@code agentsPerClient} agents share one consumer-group
 * member and one transactional producer ({@link SharedClient}), every agent one heartbeat producer
 * and one reader of the model topic (the real agent's {@link ModelCache}). The broker still sees
 * {@code N} workers: {@code N} worker ids, each announcing partitions no other worker announces,
 * and results that name the worker that ran the task and the one it was assigned to.
 */
public final class VirtualFleet implements AutoCloseable {

    /**
     * The shape of a fleet.
     *
     * @param agents how many virtual agents
     * @param agentsPerClient how many share one consumer and one producer
     * @param agentsPerPartition how many agents of a client share one partition of {@code tasks}, as
     *     the workers of a multi-device node served by one consumer would (1: each its own)
     * @param schedules agent {@code i} follows schedule {@code i} modulo their count; empty: every task
     *     takes no time
     * @param timeScale factor on every drawn time (the schedules are in ms)
     * @param heartbeatInterval how often each agent heartbeats
     * @param modelWait how long a parked assignment waits for its model version before it is
     *     dead-lettered (more than {@link io.ata.workeragent.AssignmentRunner#PARK_AHEAD} versions
     *     ahead of its job's newest, or of a job without a model)
     * @param stalledJobWait how long one a version or two ahead waits while its job's model is
     *     quiet before it is dead-lettered as the work of a stopped job (as a real agent's
     *     {@link io.ata.workeragent.AgentConfig#stalledJobWait})
     * @param seed the draws' base seed
     * @param workerPrefix worker ids are this and a four-digit number from 1
     */
    public record Settings(
            int agents,
            int agentsPerClient,
            int agentsPerPartition,
            List<TimeSchedule> schedules,
            double timeScale,
            Duration heartbeatInterval,
            Duration modelWait,
            Duration stalledJobWait,
            long seed,
            String workerPrefix) {
        public Settings {
            if (agents < 1) {
                throw new IllegalArgumentException("a fleet needs at least 1 agent, not " + agents);
            }
            if (agentsPerClient < 1) {
                throw new IllegalArgumentException("agents per client must be at least 1, not " + agentsPerClient);
            }
            if (agentsPerPartition < 1 || agentsPerClient % agentsPerPartition != 0) {
                // a remainder group of a client would be dealt no partition
                throw new IllegalArgumentException("agents per partition must divide the agents per client ("
                        + agentsPerClient + "), not " + agentsPerPartition);
            }
            if (!(timeScale >= 0) || Double.isInfinite(timeScale)) {
                throw new IllegalArgumentException("time scale must be finite and >= 0, was " + timeScale);
            }
            schedules = List.copyOf(schedules);
            Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
            Objects.requireNonNull(modelWait, "modelWait");
            Objects.requireNonNull(stalledJobWait, "stalledJobWait");
            Objects.requireNonNull(workerPrefix, "workerPrefix");
        }

        /** Zero-time tasks, 64 agents per client, heartbeats every second (a real agent's default). */
        public static Settings of(int agents) {
            return new Builder(agents).build();
        }

        private Builder toBuilder() {
            Builder b = new Builder(agents);
            b.agentsPerClient = agentsPerClient;
            b.agentsPerPartition = agentsPerPartition;
            b.schedules = schedules;
            b.timeScale = timeScale;
            b.heartbeatInterval = heartbeatInterval;
            b.modelWait = modelWait;
            b.stalledJobWait = stalledJobWait;
            b.seed = seed;
            b.workerPrefix = workerPrefix;
            return b;
        }

        /** The same fleet's shape for {@code n} agents. */
        public Settings withAgents(int n) {
            Builder b = toBuilder();
            b.agents = n;
            return b.build();
        }

        public Settings withSchedules(List<TimeSchedule> s, double scale) {
            Builder b = toBuilder();
            b.schedules = s;
            b.timeScale = scale;
            return b.build();
        }

        public Settings withHeartbeatInterval(Duration interval) {
            Builder b = toBuilder();
            b.heartbeatInterval = interval;
            return b.build();
        }

        public Settings withAgentsPerClient(int n) {
            Builder b = toBuilder();
            b.agentsPerClient = n;
            return b.build();
        }

        public Settings withAgentsPerPartition(int n) {
            Builder b = toBuilder();
            b.agentsPerPartition = n;
            return b.build();
        }

        /**
         * How many partitions of {@code tasks} the fleet's agents need: each its own, or, sharing,
         * as many per client as a full client has groups. Kafka balances partitions over the
         * clients' consumers, not over groups: with a smaller last client, fewer would leave a group
         * of a full client without one.
         */
        public int taskPartitions() {
            if (agentsPerPartition == 1) {
                return agents;
            }
            int clients = (agents + agentsPerClient - 1) / agentsPerClient;
            return clients * (agentsPerClient / agentsPerPartition);
        }

        /** Whether agents share task partitions. */
        public boolean sharesPartitions() {
            return agentsPerPartition > 1;
        }

        public Settings withModelWait(Duration wait) {
            Builder b = toBuilder();
            b.modelWait = wait;
            return b.build();
        }

        public Settings withStalledJobWait(Duration wait) {
            Builder b = toBuilder();
            b.stalledJobWait = wait;
            return b.build();
        }

        /**
         * The settings' values, defaulted as in {@link #of}, for the withers to change one at a time
         * (a new setting is a field here and an argument of {@link #build}).
         */
        private static final class Builder {
            private int agents;
            private int agentsPerClient = 64;
            private int agentsPerPartition = 1;
            private List<TimeSchedule> schedules = List.of();
            private double timeScale;
            private Duration heartbeatInterval = Duration.ofSeconds(1);
            private Duration modelWait = Duration.ofSeconds(5);
            private Duration stalledJobWait = AgentConfig.DEFAULT_STALLED_JOB_WAIT;
            private long seed = 5;
            private String workerPrefix = "vagent-";

            private Builder(int agents) {
                this.agents = agents;
            }

            private Settings build() {
                return new Settings(
                        agents,
                        agentsPerClient,
                        agentsPerPartition,
                        schedules,
                        timeScale,
                        heartbeatInterval,
                        modelWait,
                        stalledJobWait,
                        seed,
                        workerPrefix);
            }
        }
    }

    /**
     * Topics of their own for one measured load of a fleet: the prefix {@code label} and the
     * clock's nanoseconds make it fresh on a cluster that ran earlier loads, and the tasks topic has
     * a partition for every agent (at least the default count), so that no member of the fleet's
     * group idles, or exactly one for every group of agents sharing one ({@link
     * Settings#taskPartitions}).
     */
    static Topics freshTopics(String label, Settings fleet, int roundsPartitions) {
        int partitions = fleet.sharesPartitions()
                ? fleet.taskPartitions()
                : Math.max(Topics.DEFAULT_TASK_PARTITIONS, fleet.taskPartitions());
        return new Topics(label + "-" + System.nanoTime() + ".", partitions, roundsPartitions);
    }

    private final Settings settings;
    private final Topics topics;
    private final Map<String, Object> clientConfig;
    private final MeterRegistry meters;
    private final AssignmentListener listener;
    private final FleetCounts counts = new FleetCounts();
    private final FleetHeartbeats heartbeats;
    private final ModelCache models;
    /** When each job's model versions reached the fleet's model cache ({@code job/version} -> nanoTime). */
    private final Map<String, Long> modelArrivals = new ConcurrentHashMap<>();

    private final List<SharedClient> clients = new ArrayList<>();
    private final ScheduledExecutorService heartbeatTimer;
    private final Deserializer<TaskAssignment> assignments;
    private final Serializer<TaskResult> results;
    private final Serializer<TaskTiming> timings;
    private final Serializer<DeadLetter> deadLetters;
    private final ConcurrentMap<String, byte[]> gradients = new ConcurrentHashMap<>();
    private final AtomicLong roundSeen = new AtomicLong();

    /**
     * A fleet on the cluster {@code clientConfig} points at; nothing is contacted until {@link #start()}.
     *
     * @param clientConfig the cluster's client properties and bootstrap servers
     * @param listener told of every valid assignment as it reaches its agent and as its first task
     *     starts (benchmarks time with it)
     */
    public VirtualFleet(
            Map<String, Object> clientConfig,
            Topics topics,
            SchemaRegistryClient registry,
            Settings settings,
            AssignmentListener listener) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.topics = Objects.requireNonNull(topics, "topics");
        this.clientConfig = Map.copyOf(clientConfig);
        // the clients' transaction counters (the real agent's AgentMetrics), the fleet's own
        this.meters = new SimpleMeterRegistry();
        this.listener = Objects.requireNonNull(listener, "listener");
        this.assignments = topics.tasks().valueSerde(registry).deserializer();
        this.results = topics.gradients().valueSerde(registry).serializer();
        this.timings = topics.timings().valueSerde(registry).serializer();
        this.deadLetters = topics.deadLetters().valueSerde(registry).serializer();
        this.heartbeats = new FleetHeartbeats(
                clientConfig,
                topics.workers(),
                topics.workers().valueSerde(registry).serializer(),
                "virtual-fleet");
        this.models = new ModelCache(
                KafkaClientFactory.KAFKA.consumer(modelConsumerConfig("ata-virtual-fleet-model")),
                () -> KafkaClientFactory.KAFKA.shortLivedConsumer(
                        modelConsumerConfig("ata-virtual-fleet-model-recall")),
                topics.model().name(),
                topics.model().valueSerde(registry).deserializer(),
                letter -> {
                    counts.deadLetters.incrementAndGet();
                    heartbeats.sendDeadLetter(topics.deadLetters(), letter, deadLetters);
                },
                Clock.systemUTC());
        // a bench's jobs are never quiet for a day; the retention stays at least the stalled-job wait
        models.setRetention(
                ModelCache.DEFAULT_RETENTION.compareTo(settings.stalledJobWait()) >= 0
                        ? ModelCache.DEFAULT_RETENTION
                        : settings.stalledJobWait());
        models.setVersionListener(m -> modelArrivals.putIfAbsent(m.getJob() + "/" + m.getVersion(), System.nanoTime()));
        List<VirtualAgent> agents = new ArrayList<>();
        for (int i = 1; i <= settings.agents(); i++) {
            String id = settings.workerPrefix() + String.format(Locale.ROOT, "%04d", i);
            TimeSchedule schedule = settings.schedules().isEmpty()
                    ? null
                    : settings.schedules().get((i - 1) % settings.schedules().size());
            agents.add(new VirtualAgent(id, schedule, TaskSeed.of(settings.seed(), "pacer/" + id)));
        }
        for (int from = 0; from < agents.size(); from += settings.agentsPerClient()) {
            String name = "virtual-" + settings.workerPrefix()
                    + String.format(Locale.ROOT, "client-%04d", clients.size() + 1);
            clients.add(new SharedClient(
                    name, this, agents.subList(from, Math.min(agents.size(), from + settings.agentsPerClient()))));
        }
        this.heartbeatTimer = Threads.daemonScheduler("ata-virtual-fleet-heartbeats");
    }

    /**
     * The transactional ids of the fleet's shared clients, one each (an operator grants them WRITE
     * on a secured cluster; a test fences one with them).
     */
    public List<String> transactionalIds() {
        return clients.stream().map(c -> topics.agentTransactionalId(c.name())).toList();
    }

    /** Starts every client, the model reader and the heartbeats; returns at once. */
    public void start() {
        models.start("ata-virtual-fleet-models");
        clients.forEach(SharedClient::start);
        // each agent's heartbeats at its own phase of the interval, as independent agents' would be
        // (a client's agents at once made bursts the broker's membership path had to absorb together)
        long interval = settings.heartbeatInterval().toNanos();
        List<VirtualAgent> all = agents();
        for (int i = 0; i < all.size(); i++) {
            VirtualAgent agent = all.get(i);
            heartbeatTimer.scheduleAtFixedRate(
                    () -> {
                        if (agent.present) {
                            heartbeats.send(agent);
                        }
                    },
                    interval * i / all.size(),
                    interval,
                    TimeUnit.NANOSECONDS);
        }
    }

    /** Every agent's worker id, in order. */
    public List<String> workerIds() {
        return agents().stream().map(a -> a.workerId).toList();
    }

    /** The task partitions each present agent announces now, by worker id. */
    public Map<String, List<Integer>> partitions() {
        Map<String, List<Integer>> all = new LinkedHashMap<>();
        for (VirtualAgent a : agents()) {
            if (a.present) {
                all.put(a.workerId, a.partitions);
            }
        }
        return all;
    }

    /**
     * Waits until the broker sees every present agent as a live member owning task partitions
     * (its {@code membership}: the heartbeat it keeps per worker id), and every agent owns some:
     * the state in which rounds can go to all of them.
     *
     * @throws IllegalStateException if that takes longer than {@code timeout}
     */
    public void awaitMembers(Function<String, WorkerHeartbeat> membership, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> missing = new ArrayList<>();
            partitions().forEach((worker, owned) -> {
                WorkerHeartbeat h = membership.apply(worker);
                if (owned.isEmpty() || h == null || h.getPartitions().isEmpty()) {
                    missing.add(worker);
                }
            });
            if (missing.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(missing.size() + " virtual agents are not yet members owning"
                        + " partitions, e.g. " + missing.subList(0, Math.min(5, missing.size())));
            }
            Thread.sleep(100);
        }
    }

    /** Results published (completed and cancelled) by each agent, by worker id. */
    public Map<String, Long> resultsByWorker() {
        Map<String, Long> all = new LinkedHashMap<>();
        agents().forEach(a -> all.put(a.workerId, a.results.get()));
        return all;
    }

    public FleetCounts.Snapshot counts() {
        return counts.snapshot();
    }

    /** How many Kafka consumer-group members (and transactional producers) carry the fleet. */
    public int clientCount() {
        return clients.size();
    }

    /** Why a client stopped on its own, if one did. */
    public Optional<Throwable> failure() {
        return clients.stream().flatMap(c -> c.failure().stream()).findFirst();
    }

    /** Stops: every present agent says LEAVING, every consumer leaves the group. */
    @Override
    public void close() {
        heartbeatTimer.shutdownNow();
        clients.forEach(SharedClient::close);
        models.close();
        heartbeats.close();
    }

    private List<VirtualAgent> agents() {
        return clients.stream().flatMap(c -> c.agents().stream()).toList();
    }

    // ---- what the clients share ----------------------------------------------------------------

    Topics topics() {
        return topics;
    }

    MeterRegistry meters() {
        return meters;
    }

    AssignmentListener listener() {
        return listener;
    }

    FleetCounts countsForUpdate() {
        return counts;
    }

    FleetHeartbeats heartbeats() {
        return heartbeats;
    }

    /**
     * When version {@code version} of {@code job} reached the fleet's model cache (nanoTime); empty
     * if it has not, or came only as part of a newer one.
     */
    public OptionalLong modelArrived(String job, long version) {
        Long at = modelArrivals.get(job + "/" + version);
        return at == null ? OptionalLong.empty() : OptionalLong.of(at);
    }

    ModelCache models() {
        return models;
    }

    Duration modelWait() {
        return settings.modelWait();
    }

    Duration stalledJobWait() {
        return settings.stalledJobWait();
    }

    double timeScale() {
        return settings.timeScale();
    }

    Settings settings() {
        return settings;
    }

    Deserializer<TaskAssignment> assignmentDeserializer() {
        return assignments;
    }

    byte[] encodeResult(TaskResult r) {
        return results.serialize(topics.gradients().name(), r);
    }

    byte[] encodeTiming(TaskTiming t) {
        return timings.serialize(topics.timings().name(), t);
    }

    byte[] encodeDeadLetter(DeadLetter d) {
        return deadLetters.serialize(topics.deadLetters().name(), d);
    }

    /** The gradients partition of a result whose assignment came from {@code tasksPartition} (as a real agent's). */
    int gradientsPartition(int tasksPartition) {
        return tasksPartition % topics.gradients().partitions();
    }

    /** A gradient of zeros of {@code model}'s dimension: the tiny payload of a task that computes nothing. */
    byte[] gradientOf(ModelVersion model) {
        int dimension = TensorCodec.length(model.getParameters(), model.getEncoding());
        return gradients.computeIfAbsent(
                model.getJob() + "/" + dimension,
                k -> TensorCodec.encode(new double[dimension], TensorEncoding.FLOAT64_LE));
    }

    /** The newest round any agent has seen: joins and leaves follow it. */
    long roundSeen() {
        return roundSeen.get();
    }

    void sawRound(long round) {
        roundSeen.accumulateAndGet(round, Math::max);
    }

    /** A real agent's task consumer (AgentClients), but taking many records a poll: they are for many agents. */
    Map<String, Object> taskConsumerConfig(String name) {
        Map<String, Object> c = committedFromTheStart(name + "-tasks");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, topics.workerGroup());
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        c.putIfAbsent(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        c.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        c.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 2_000);
        c.putIfAbsent(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, topics.agentTransactionalId(name));
        c.putIfAbsent(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 10_000);
        return c;
    }

    /** A real agent's results producer: transactional under the client's id, idempotent, acks=all. */
    Map<String, Object> resultsProducerConfig(String name) {
        Map<String, Object> c = new HashMap<>(clientConfig);
        c.put("client.id", "ata-" + name + "-results");
        c.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topics.agentTransactionalId(name));
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        c.put(ProducerConfig.ACKS_CONFIG, "all");
        c.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000);
        return c;
    }

    private Map<String, Object> modelConsumerConfig(String clientId) {
        Map<String, Object> c = committedFromTheStart(clientId);
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        c.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        return c;
    }

    private Map<String, Object> committedFromTheStart(String clientId) {
        Map<String, Object> c = new HashMap<>(clientConfig);
        c.put("client.id", clientId);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        return c;
    }
}
