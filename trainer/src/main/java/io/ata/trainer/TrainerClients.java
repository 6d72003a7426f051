package io.ata.trainer;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The configurations of the trainer's Kafka clients: the user's client properties and bootstrap
 * servers ({@link TrainerConfig#clientConfig()}), then the settings exactly-once depends on, which
 * override them. The trainer reads and writes raw bytes: no (de)serializers.
 */
final class TrainerClients {
    /** The gradients consumer's session timeout unless the user's properties set one (classic protocol). */
    static final int DEFAULT_SESSION_TIMEOUT_MS = 10_000;

    private TrainerClients() {}

    /** The transactional producer of model versions, round events and dead letters. */
    static Map<String, Object> producer(TrainerConfig config) {
        Map<String, Object> p = config.clientConfig();
        p.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + config.job());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.transactionalId());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        p.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        return p;
    }

    /** The group member on {@code gradients}, whose committed offsets mark where the last closed round ended. */
    static Map<String, Object> gradientsConsumer(TrainerConfig config) {
        Map<String, Object> p = readCommitted(config.clientConfig());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        p.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + config.job() + "-gradients");
        // a group without committed offsets (they expired): from the beginning; older rounds are stale
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Static membership: a trainer restarted for its job takes the partitions back at once (a
        // new member waited for the dead one's session, 45 s by default). One trainer per job.
        p.putIfAbsent(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, config.groupId());
        Object protocol = p.getOrDefault(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        if (protocol.toString().toLowerCase(Locale.ROOT).equals("classic")) {
            p.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, DEFAULT_SESSION_TIMEOUT_MS);
            p.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, DEFAULT_SESSION_TIMEOUT_MS / 5);
        }
        return p;
    }

    /**
     * A hosted job's reader of its group's committed offsets, and of the results between them and
     * where the host's reader was when the job attached ({@link HostedGradients}): in the job's
     * group, to read its offsets, but never a member (it assigns itself partitions).
     */
    static Map<String, Object> catchUpReader(TrainerConfig config) {
        Map<String, Object> p = readCommitted(config.clientConfig());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + config.job() + "-catch-up");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return shortLived(p);
    }

    /**
     * A {@link TrainerHost}'s one reader of {@code gradients}: outside any group (each job's group
     * keeps the job's offsets); from the earliest record should the one it was at be deleted.
     */
    static Map<String, Object> hostReader(Map<String, Object> clientConfig) {
        Map<String, Object> p = outsideAnyGroup(new HashMap<>(clientConfig));
        p.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-host-gradients");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        freshMetadata(p);
        return p;
    }

    /** The reader of the job's latest model version at start: no group, it reads {@code model} once. */
    static Map<String, Object> modelReader(TrainerConfig config) {
        return shortLived(withoutGroup(config, "-model"));
    }

    /**
     * {@code p} (changed) for a consumer made for one short task (reading the model once, a
     * catch-up, the end offsets): no JMX beans and no metrics pushed to the cluster, unless the
     * user's settings name reporters or ask for the push. Registering a client's metrics as JMX
     * beans cost more CPU than the task itself: a thousand jobs starting in one trainer host spent
     * most of their start there.
     */
    static Map<String, Object> shortLived(Map<String, Object> p) {
        p.putIfAbsent(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, "");
        p.putIfAbsent(CommonClientConfigs.ENABLE_METRICS_PUSH_CONFIG, false);
        return p;
    }

    /**
     * The watch's reader of {@code tasks}: no group, it only watches the assignments. Its fetches
     * wait at most 25 ms for data: results wait for the watch to catch up, and a read_committed
     * fetch parked at the broker can sit out its whole wait (500 ms by default) when the records it
     * waits for are committed meanwhile (a soak measured rounds held that long).
     */
    static Map<String, Object> tasksWatcher(TrainerConfig config) {
        Map<String, Object> p = withoutGroup(config, "-deadlines");
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, WATCH_FETCH_MAX_WAIT_MS);
        return p;
    }

    /**
     * A {@link TrainerHost}'s reader of {@code allocations} for all its jobs' watches ({@code role}
     * names which of its two): as {@link #tasksWatcher}, on the host's client settings.
     */
    static Map<String, Object> hostWatcher(Map<String, Object> clientConfig, String role) {
        Map<String, Object> p = outsideAnyGroup(new HashMap<>(clientConfig));
        Object base = clientConfig.getOrDefault(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-host");
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, base + "-deadlines" + role); // two of them: one name each
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, WATCH_FETCH_MAX_WAIT_MS);
        // a start offset deleted by retention meanwhile: read from the oldest kept, never skip to the end
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        freshMetadata(p);
        return p;
    }

    /**
     * A host's reader looks for partitions added to its topic every 30 s, and sees them only once
     * its metadata is refreshed: every 5 min by default.
     */
    private static void freshMetadata(Map<String, Object> p) {
        p.putIfAbsent(CommonClientConfigs.METADATA_MAX_AGE_CONFIG, (int) SharedGradientsReader.PARTITIONS_CHECK_MS);
    }

    /** The longest a fetch of the watch waits for data at the broker. */
    static final int WATCH_FETCH_MAX_WAIT_MS = 25;

    /**
     * The overdue watch's producer of OVERDUE round events: idempotent but not transactional, since
     * a request for backups is not part of the round's exactly-once state.
     */
    static Map<String, Object> overdueProducer(TrainerConfig config) {
        Map<String, Object> p = overdue(config.clientConfig());
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + config.job() + "-overdue");
        return p;
    }

    /**
     * A {@link TrainerHost}'s one producer of OVERDUE events, for all its trainers' watches. Its
     * sends run on the host's one thread for every job's deadlines: one waiting for metadata or
     * buffer space (the topic gone, the cluster unreachable) holds up every job, so a send gives up
     * after {@link #HOST_MAX_BLOCK_MS} (Kafka's default is a minute); that request is sent again at
     * the job's next deadline.
     */
    static Map<String, Object> hostOverdueProducer(Map<String, Object> clientConfig) {
        Map<String, Object> p = overdue(new HashMap<>(clientConfig));
        p.putIfAbsent(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-host-overdue");
        p.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, HOST_MAX_BLOCK_MS);
        return p;
    }

    /** The longest a trainer host's send of an OVERDUE event, OPENED again or dead letter may wait. */
    static final int HOST_MAX_BLOCK_MS = 1_000;

    private static Map<String, Object> overdue(Map<String, Object> p) {
        p.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        p.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        return p;
    }

    /** A read_committed consumer outside any group, named after the job and {@code role}. */
    private static Map<String, Object> withoutGroup(TrainerConfig config, String role) {
        Map<String, Object> p = outsideAnyGroup(config.clientConfig());
        p.put(CommonClientConfigs.CLIENT_ID_CONFIG, "ata-trainer-" + config.job() + role);
        return p;
    }

    /** {@code p} (changed), reading committed records outside any group (whatever the user's settings name). */
    private static Map<String, Object> outsideAnyGroup(Map<String, Object> p) {
        readCommitted(p);
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        return p;
    }

    /** {@code p} (changed), reading committed records only as raw bytes, committing nothing by itself. */
    private static Map<String, Object> readCommitted(Map<String, Object> p) {
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        p.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        return p;
    }
}
