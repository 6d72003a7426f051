package io.ata.broker;

import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.TopicConfigs;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Runs the broker topology in a {@link KafkaStreams} instance with exactly-once processing, and
 * gives read access to its stores for interactive queries. Several instances with the same
 * application id share the jobs between them, as a consumer group: each hosts the jobs of its
 * partitions of the rounds topic. An instance given an {@code endpoint} (its HTTP queries)
 * advertises it as {@code application.server}, so that every instance knows where each job lives.
 * Its counters ({@link BrokerMetrics}) and Kafka Streams' own metrics ({@link KafkaStreamsMetrics}) go to
 * the {@link MeterRegistry} it is given.
 */
public final class BrokerApp implements AutoCloseable {
    /** The rounds topic's key, hence the jobs store's: the job, as a UTF-8 string. */
    private static final Serializer<String> JOB_KEYS = new StringSerializer();

    private final KafkaStreams streams;
    private final HostInfo endpoint;
    private final BrokerMetrics metrics;
    /** Kafka Streams' own metrics (and its clients'), bound into the same registry. */
    private final KafkaStreamsMetrics streamsMetrics;

    private final TaskPartitionCount taskPartitions;
    /** Grows the tasks topic when live agents own no partition of it. */
    private final TaskPartitionGrowth partitionGrowth;
    /** Reports tasks partitions that two live workers claim (two consumer groups on the topic). */
    private final TaskPartitionClaims partitionClaims;
    /** Runs {@link #partitionGrowth} and {@link #partitionClaims} every few seconds, on one read of the membership. */
    private final ScheduledExecutorService partitionChecks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "task-partition-checks");
        t.setDaemon(true);
        return t;
    });
    /** Dead-letters what the global membership store skips (it cannot itself). */
    private final MembershipAudit membershipAudit;

    private final BrokerSettings settings;
    /** What restoring the stores took, at start and after each rebalance. */
    private final StoreRestores restores = new StoreRestores();
    /** The tasks whose local state was deleted at start, after an unclean stop ({@link UncleanStopState}). */
    private final List<String> deletedTaskStates;
    /** Kafka Streams' state directory and the application id: where a clean stop is marked. */
    private final Path streamsStateDir;

    private final String appId;

    /** An instance without HTTP queries of its own: it tells no other instance where it is. */
    public BrokerApp(Properties kafka, BrokerSettings settings, SchemaRegistryClient registry, Path stateDir) {
        this(kafka, settings, registry, stateDir, null);
    }

    /** An instance whose counters go to a {@link SimpleMeterRegistry} of its own. */
    public BrokerApp(
            Properties kafka,
            BrokerSettings settings,
            SchemaRegistryClient registry,
            Path stateDir,
            HostInfo endpoint) {
        this(kafka, settings, registry, stateDir, endpoint, new SimpleMeterRegistry());
    }

    /**
     * @param kafka    Kafka Streams and client properties: at least {@code bootstrap.servers}; security
     *                 settings pass through; defaults below are applied where absent
     * @param stateDir where the local state stores live
     * @param endpoint host and port where this instance serves its HTTP queries and the other
     *                 instances can reach them ({@code application.server}); null for none
     * @param meters   where the broker's counters go, tagged with its application id
     */
    public BrokerApp(
            Properties kafka,
            BrokerSettings settings,
            SchemaRegistryClient registry,
            Path stateDir,
            HostInfo endpoint,
            MeterRegistry meters) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "ata-broker");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // Outputs of a transaction are visible only when it commits. The processors ask for a
        // commit (ProcessorContext.commit) as soon as they emit what somebody waits for:
        // assignments, membership, dead letters. A CLOSED event asks for none: the next OPENED
        // event follows it in the same partition, and one transaction commits both (at interval 0
        // Streams committed after each record, two transactions back to back). The interval
        // commits the rest (the last round's statistics, liveness changes). Polls are short, so a
        // round's events do not wait in poll() (measured with the defaults: p90 114 ms, README).
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        props.put(StreamsConfig.POLL_MS_CONFIG, 5);
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 2);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 10);
        props.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 0);
        // Transactions of a thread can still follow each other closely (an interval commit between
        // a CLOSED and an OPENED event, a heartbeat's commit); a write refused while the previous
        // one's markers are being written is retried after this backoff (default 100 ms).
        props.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), 5);
        // the tasks topic may grow (TaskPartitionGrowth): write to new partitions within 10 s
        props.put(StreamsConfig.producerPrefix(ProducerConfig.METADATA_MAX_AGE_CONFIG), 10_000);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // No record may stop the broker. The sources read bytes, so nothing fails to deserialize;
        // should one ever, it is logged and skipped. An output too large is skipped (logged), and
        // a failed stream thread is replaced (StreamErrorHandlers).
        props.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueExceptionHandler.class);
        props.put(
                StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG,
                StreamErrorHandlers.SkipUnwritableRecords.class);
        // A dead instance's tasks move after this (Kafka's default, 45 s, froze the jobs that long)
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        props.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 2_000);
        // Its internal topic, the jobs store's changelog, compacted in segments as small as ATA's
        // compacted topics', so that compaction runs during a run (with the cluster's default of
        // 1 GiB a segment did not close, and every JobState of a run stayed); a topic.* property
        // of the caller's overrides each.
        TopicConfigs.compacted().forEach((key, value) -> props.put(StreamsConfig.topicPrefix(key), value));
        props.putAll(kafka);
        String appId = String.valueOf(props.get(StreamsConfig.APPLICATION_ID_CONFIG));
        if (!setsGroupInstanceId(props)) {
            // static membership: a restarted instance takes its tasks back without a rebalance
            // (Streams appends each thread's index)
            props.put(
                    StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
                    appId + "-" + InstanceId.of(stateDir, appId));
        }
        if (endpoint != null) {
            props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, endpoint.host() + ":" + endpoint.port());
        }
        this.endpoint = endpoint;
        this.settings = settings;
        this.metrics = new BrokerMetrics(meters, appId);
        Topics topics = new Topics(settings.topicPrefix());
        StreamsConfig config = new StreamsConfig(props);
        this.taskPartitions = new TaskPartitionCount(
                config.getAdminConfigs(appId + "-task-partitions"),
                topics.tasks().name());
        this.streamsStateDir = Path.of(config.getString(StreamsConfig.STATE_DIR_CONFIG));
        this.appId = appId;
        // after kill -9 Streams would open each task's stores only to wipe them
        boolean cleanStop = UncleanStopState.takeCleanStopMarker(streamsStateDir, appId);
        boolean spoiledByUncleanStop =
                StreamsConfig.EXACTLY_ONCE_V2.equals(config.getString(StreamsConfig.PROCESSING_GUARANTEE_CONFIG))
                        && config.getInt(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG) == 0;
        this.deletedTaskStates = !cleanStop && spoiledByUncleanStop
                ? UncleanStopState.deleteTaskState(streamsStateDir, appId)
                : List.of();
        this.streams = new KafkaStreams(BrokerTopology.build(settings, registry, metrics, taskPartitions), props);
        this.partitionGrowth = new TaskPartitionGrowth(taskPartitions, settings, meters, appId);
        this.partitionClaims = new TaskPartitionClaims(settings, meters, appId);
        this.membershipAudit = new MembershipAudit(
                config.getGlobalConsumerConfigs(MembershipAudit.groupId(appId)),
                config.getProducerConfigs(MembershipAudit.groupId(appId)),
                appId,
                topics.membership().name(),
                topics.deadLetters().name(),
                BrokerTopology.membershipCheck(settings, registry, taskPartitions),
                topics.deadLetters().valueSerde(registry).serializer(),
                metrics);
        streams.setUncaughtExceptionHandler(StreamErrorHandlers.replaceThread());
        streams.setGlobalStateRestoreListener(restores);
        this.streamsMetrics = new KafkaStreamsMetrics(streams);
        streamsMetrics.bindTo(meters);
    }

    /** Whether the user's properties name a group instance id for the main consumer already. */
    private static boolean setsGroupInstanceId(Properties props) {
        String id = ConsumerConfig.GROUP_INSTANCE_ID_CONFIG;
        return props.containsKey(id)
                || props.containsKey(StreamsConfig.consumerPrefix(id))
                || props.containsKey(StreamsConfig.mainConsumerPrefix(id));
    }

    /**
     * The consumer group, besides the application id, in which an instance with application id
     * {@code applicationId} reads: the one that dead-letters bad membership records.
     */
    public static String membershipAuditGroup(String applicationId) {
        return MembershipAudit.groupId(applicationId);
    }

    public BrokerApp start() {
        streams.start();
        membershipAudit.start();
        partitionChecks.scheduleWithFixedDelay(
                new TaskPartitionChecks(
                        this::membershipHeartbeats, this::membershipClock, List.of(partitionGrowth, partitionClaims)),
                settings.fleetCheck().toMillis(),
                settings.fleetCheck().toMillis(),
                TimeUnit.MILLISECONDS);
        return this;
    }

    /** Blocks until the instance is RUNNING (all tasks assigned and restored). */
    public void awaitRunning(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (streams.state() != KafkaStreams.State.RUNNING) {
            if (System.nanoTime() > deadline
                    || streams.state() == KafkaStreams.State.ERROR
                    || streams.state() == KafkaStreams.State.NOT_RUNNING) {
                throw new IllegalStateException("broker did not reach RUNNING, state " + streams.state());
            }
            Thread.sleep(20);
        }
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** The jobs hosted by this instance (interactive query). */
    public StoredJobs jobs() {
        return new StoredJobs(
                streams.store(StoreQueryParameters.fromNameAndType(
                        BrokerTopology.JOBS_STORE, QueryableStoreTypes.<String, JobState>keyValueStore())),
                streams.store(StoreQueryParameters.fromNameAndType(
                        BrokerTopology.JOB_WORKERS_STORE, QueryableStoreTypes.<String, JobWorkerState>keyValueStore())),
                streams.store(StoreQueryParameters.fromNameAndType(
                        BrokerTopology.JOB_LEARNED_STORE, QueryableStoreTypes.<String, byte[]>keyValueStore())),
                settings,
                this::membershipHeartbeats,
                this::membershipClock);
    }

    /** The time liveness is judged at now, as the rounds judge it: allowing for a lagging membership path. */
    private long membershipClock() {
        return settings.membershipClock(System.currentTimeMillis(), metrics.membershipDelay());
    }

    /** Where this instance serves its HTTP queries; empty if it serves none. */
    public Optional<HostInfo> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /**
     * Which instance hosts {@code job} (the active owner of its partition) as of the group's last
     * rebalance; {@link KeyQueryMetadata#NOT_AVAILABLE} while that is not known. The job need not
     * exist: its owner is the one that would host it.
     */
    public KeyQueryMetadata ownerOf(String job) {
        KeyQueryMetadata owner = streams.queryMetadataForKey(BrokerTopology.JOBS_STORE, job, JOB_KEYS);
        return owner == null ? KeyQueryMetadata.NOT_AVAILABLE : owner;
    }

    /** The endpoints of the instances that host part of the jobs store (this one too, if it does). */
    public Set<HostInfo> jobHosts() {
        return streams.streamsMetadataForStore(BrokerTopology.JOBS_STORE).stream()
                .map(StreamsMetadata::hostInfo)
                .collect(Collectors.toSet());
    }

    /** Every heartbeat of the membership store (live or not), for the partition checks and the queries. */
    private Collection<WorkerHeartbeat> membershipHeartbeats() {
        return heartbeatsIn(membership());
    }

    /** Every heartbeat {@code membership} holds, in its order. */
    static List<WorkerHeartbeat> heartbeatsIn(ReadOnlyKeyValueStore<String, WorkerHeartbeat> membership) {
        List<WorkerHeartbeat> all = new ArrayList<>();
        try (KeyValueIterator<String, WorkerHeartbeat> it = membership.all()) {
            it.forEachRemaining(kv -> all.add(kv.value));
        }
        return all;
    }

    /** The live membership, as every instance sees it (global store). */
    public ReadOnlyKeyValueStore<String, WorkerHeartbeat> membership() {
        return streams.store(StoreQueryParameters.fromNameAndType(
                BrokerTopology.MEMBERSHIP_STORE, QueryableStoreTypes.keyValueStore()));
    }

    /** The settings the instance runs with (the policies' constants among them). */
    public BrokerSettings settings() {
        return settings;
    }

    /** The stores this instance restored from their changelogs, and what each took. */
    public List<StoreRestores.Restore> restores() {
        return restores.ended();
    }

    /**
     * The tasks (e.g. {@code 2_5}) whose local state this instance deleted before it started, because
     * exactly-once would have discarded it: the last stop on this state directory was not clean.
     */
    public List<String> deletedTaskStates() {
        return deletedTaskStates;
    }

    /** This instance's counters. */
    public BrokerMetrics metrics() {
        return metrics;
    }

    /**
     * Partitions of the tasks topic that live workers of different consumers claimed at the last
     * checks (two groups reading the topic); the gauge {@code ata.broker.task.partitions.claimed.twice}.
     */
    public int taskPartitionsClaimedTwice() {
        return partitionClaims.claimedTwice();
    }

    /** Stops the instance (waiting up to 30 s) and removes its counters from the registry. */
    @Override
    public void close() {
        partitionChecks.shutdownNow();
        partitionGrowth.close();
        partitionClaims.close();
        membershipAudit.close();
        if (streams.close(Duration.ofSeconds(30))) {
            UncleanStopState.markCleanStop(streamsStateDir, appId);
        }
        streamsMetrics.close();
        taskPartitions.close();
        metrics.unregister();
    }
}
