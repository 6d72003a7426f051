package io.ata.workeragent;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The agent's four Kafka clients and the settings each needs, in one place:
 * <ul>
 *   <li>the <b>task consumer</b>: member of the group on {@code tasks}, read_committed, no auto
 *       commit (offsets are committed inside the task transactions), one record per poll (one
 *       assignment at a time), from the earliest offset when the group has none (an assignment
 *       may be written before this consumer's first fetch);</li>
 *   <li>the <b>model consumer</b>: no group, read_committed ({@link ModelCache});</li>
 *   <li>the <b>early model consumer</b>: no group, read_uncommitted, from the end ({@link EarlyModels});
 *       none if the agent does not start early ({@link AgentConfig#earlyStart()});</li>
 *   <li>the <b>transactional producer</b> for results, timings and task dead letters,
 *       {@code transactional.id = <prefix>agent-<workerId>} ({@link Topics#agentTransactionalId}),
 *       so a restarted agent fences its zombie, and an agent of the same worker id in a
 *       deployment with another topic prefix does not fence this one;</li>
 *   <li>the <b>heartbeat producer</b>, plain and idempotent, for heartbeats and model dead
 *       letters.</li>
 * </ul>
 * The user's client properties (security, timeouts) come first; the settings above override them.
 * Neither consumer creates topics. The clients themselves are created by a
 * {@link io.ata.platform.kafka.KafkaClientFactory} (tests pass one returning Kafka's mock clients).
 */
final class AgentClients {

    /**
     * What both consumers share: they read committed records only, from the start of a partition
     * without a committed offset, commit no offsets by themselves and create no topics.
     */
    private static final Map<String, Object> COMMITTED_FROM_THE_START = Map.of(
            ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            "read_committed",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
            false);

    /**
     * What both producers share: every record is written once, in order, and acknowledged by all
     * in-sync replicas.
     */
    private static final Map<String, Object> IDEMPOTENT =
            Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.ACKS_CONFIG, "all");

    /** The task consumer's session timeout unless the user's properties set one (classic protocol). */
    static final int DEFAULT_SESSION_TIMEOUT_MS = 10_000;
    /** The results producer's transaction timeout unless the user's properties set one. */
    static final int DEFAULT_TRANSACTION_TIMEOUT_MS = 10_000;

    /** How often the task consumer refreshes its metadata unless told: new partitions are seen within it. */
    static final int METADATA_MAX_AGE_MS = 10_000;

    private AgentClients() {}

    /**
     * The name heartbeats give the task consumer when workers share it: its group and static member
     * id, unique across consumer groups.
     */
    static String taskConsumerName(AgentConfig config) {
        Map<String, Object> c = taskConsumer(config);
        return c.get(ConsumerConfig.GROUP_ID_CONFIG) + "/" + c.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
    }

    /**
     * The agent's transactional id, also its static member id in the group: the topic prefix's
     * {@link Topics#agentTransactionalId(String)}, {@code <prefix>agent-<workerId>}.
     */
    static String transactionalId(AgentConfig config) {
        return new Topics(config.topicPrefix()).agentTransactionalId(config.workerId());
    }

    static Map<String, Object> taskConsumer(AgentConfig config) {
        return taskConsumer(config, 1);
    }

    /**
     * The task consumer reading up to {@code maxPollRecords} records a poll: one for an agent that
     * runs one assignment at a time, more for one that hands them to several workers.
     */
    static Map<String, Object> taskConsumer(AgentConfig config, int maxPollRecords) {
        Map<String, Object> fixed = new HashMap<>(COMMITTED_FROM_THE_START);
        fixed.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        fixed.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, maxPollRecords);
        Map<String, Object> c = clientConfig(config, "tasks", fixed);
        // Classic protocol: move as few partitions as possible on a rebalance, so the partition
        // lists the broker allocates by stay valid. (The new "consumer" protocol assigns
        // incrementally on the broker side and refuses this setting.)
        Object protocol = c.getOrDefault(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        if (protocol.toString().toLowerCase(Locale.ROOT).equals("classic")) {
            c.putIfAbsent(
                    ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
            // a dead agent's partitions move after this (Kafka's default, 45 s, froze its tasks'
            // partitions that long); the broker stops allocating to it sooner, by its liveness
            // timeout. (The "consumer" protocol takes the session timeout from the cluster.)
            c.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, DEFAULT_SESSION_TIMEOUT_MS);
            c.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, DEFAULT_SESSION_TIMEOUT_MS / 5);
        }
        // Static membership: an agent restarted under its id takes its partitions back at once,
        // without a rebalance (a new member waited for the dead one's session to expire).
        c.putIfAbsent(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, transactionalId(config));
        // the broker grows the tasks topic when the fleet outgrows it; the group notices new
        // partitions at a metadata refresh (every 5 minutes by default)
        c.putIfAbsent(ConsumerConfig.METADATA_MAX_AGE_CONFIG, METADATA_MAX_AGE_MS);
        return c;
    }

    /**
     * Closes the task consumer: after a crash ({@code crash}) at once and staying in the group, so
     * the group notices only after the session timeout, as it would a dead process; else leaving
     * the group within {@code timeout} (a static member stays unless told, and a stop is for good).
     */
    static void closeTaskConsumer(Consumer<?, ?> consumer, boolean crash, Duration timeout) {
        consumer.close(
                crash
                        ? CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                                .withTimeout(Duration.ZERO)
                        : CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                                .withTimeout(timeout));
    }

    /**
     * The agent's model cache: its consumer of the model topic and, for a job's model forgotten
     * and wanted again, short-lived consumers that read it again; model records it cannot use go
     * to {@code deadLetters}.
     */
    static ModelCache modelCache(
            AgentConfig config,
            KafkaClientFactory clients,
            Topics topics,
            AgentCodec codec,
            DeadLetterSink deadLetters,
            Clock clock) {
        ModelCache cache = new ModelCache(
                clients.consumer(modelConsumer(config)),
                () -> clients.shortLivedConsumer(modelRecallConsumer(config)),
                topics.model().name(),
                codec.decoder(topics.model()),
                deadLetters,
                clock);
        cache.setRetention(config.modelRetention());
        return cache;
    }

    static Map<String, Object> modelConsumer(AgentConfig config) {
        return modelReader(config, "model");
    }

    /**
     * The agent's reader of model versions before their commit ({@link EarlyModels}), beside the
     * model cache it asks what has committed.
     */
    static EarlyModels earlyModels(
            AgentConfig config, KafkaClientFactory clients, Topics topics, AgentCodec codec, ModelSource committed) {
        return new EarlyModels(
                clients.consumer(earlyModelConsumer(config)),
                topics.model().name(),
                codec.decoder(topics.model()),
                committed);
    }

    /** As the model consumer, but {@code read_uncommitted}: it sees a version as soon as it is written. */
    static Map<String, Object> earlyModelConsumer(AgentConfig config) {
        Map<String, Object> c = modelReader(config, "model-early");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        return c;
    }

    /** The consumer that reads a forgotten job's model again ({@link ModelRecall}): as the model consumer. */
    static Map<String, Object> modelRecallConsumer(AgentConfig config) {
        return modelReader(config, "model-recall");
    }

    private static Map<String, Object> modelReader(AgentConfig config, String clientIdSuffix) {
        Map<String, Object> c = clientConfig(config, clientIdSuffix, COMMITTED_FROM_THE_START);
        // no group, whatever the user's properties say
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        c.remove(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        c.remove(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
        return c;
    }

    static Map<String, Object> transactionalProducer(AgentConfig config) {
        Map<String, Object> fixed = new HashMap<>(IDEMPOTENT);
        fixed.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId(config));
        Map<String, Object> c = clientConfig(config, "results", fixed);
        // A transaction holds the sends of the results that waited for it (TransactionPublisher) and
        // its commit, never a computation, so it lasts milliseconds; a frozen agent's open one is
        // aborted after this (default 60 s), and until then it hides the later results of its
        // partition from the trainer (read_committed).
        c.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, DEFAULT_TRANSACTION_TIMEOUT_MS);
        return c;
    }

    static Map<String, Object> heartbeatProducer(AgentConfig config) {
        Map<String, Object> fixed = new HashMap<>(IDEMPOTENT);
        fixed.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        Map<String, Object> c = clientConfig(config, "heartbeats", fixed);
        c.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG); // plain, whatever the user's properties say
        return c;
    }

    /** The user's properties, then the bootstrap servers, then the client id of {@code role} and {@code fixed}. */
    private static Map<String, Object> clientConfig(AgentConfig config, String role, Map<String, Object> fixed) {
        Map<String, Object> all = new HashMap<>(fixed);
        all.put(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-agent-" + config.workerId() + "-" + role);
        return config.clientConfig(all);
    }
}
