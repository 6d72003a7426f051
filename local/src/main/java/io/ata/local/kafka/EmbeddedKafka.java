package io.ata.local.kafka;

import io.ata.schemas.TopicConfigs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A Kafka broker in this JVM: one KRaft node that is both broker and controller, listening on
 * 127.0.0.1, for the single-machine setup and for integration tests. Settings suit a single node:
 * replication factor 1 everywhere (also for the consumer offsets and transaction state topics, so
 * transactions and Kafka Streams {@code exactly_once_v2} work), no initial rebalance delay, no
 * automatic topic creation, 1 partition per topic unless told otherwise, and segments small enough
 * that retention and compaction act within a run, with retention checked every few seconds.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder().start()) {
 *     kafka.createTopics(TopicSpec.of("events", 3), TopicSpec.compacted("state", 1));
 *     Map<String, Object> config = kafka.clientConfig();   // bootstrap.servers=127.0.0.1:<port>
 *     ...
 * }
 * }</pre>
 *
 * <p>The log directory is a fresh temporary directory, deleted by {@link #close()}, unless the
 * builder is given one with {@link Builder#dataDir(Path)}: that directory is kept, and a broker
 * started on it again (after {@link #stop()} and {@link #start()}, or in another process) finds its
 * topics and records. The directory is formatted (cluster id, metadata version) the first time.
 *
 * <p>The port is ephemeral unless {@link Builder#port(int)} gives one; a restarted broker keeps its
 * ports, so {@link #bootstrapServers()} stays valid. Kafka's own logging is turned down to WARN,
 * see {@link KafkaLogging}. Instances are thread-safe.
 */
public final class EmbeddedKafka implements AutoCloseable {
    /** The host the broker listens on and advertises. */
    public static final String HOST = "127.0.0.1";
    /** The node id of the single node. */
    public static final int NODE_ID = 1;
    /** The name of the listener clients connect to. */
    public static final String BROKER_LISTENER = "PLAINTEXT";
    /** The name of the listener clients connect to when SASL is on ({@link Builder#saslPlain}). */
    public static final String SASL_LISTENER = "SASL_PLAINTEXT";
    /** The name of the KRaft controller's listener (its port is always ephemeral). */
    public static final String CONTROLLER_LISTENER = "CONTROLLER";

    /** Settings that this class computes (ports, roles, directories) and the builder must not override. */
    private static final Set<String> MANAGED = Set.of(
            "process.roles",
            "node.id",
            "broker.id",
            "listeners",
            "advertised.listeners",
            "listener.security.protocol.map",
            "controller.listener.names",
            "inter.broker.listener.name",
            "controller.quorum.voters",
            "controller.quorum.bootstrap.servers",
            "log.dirs",
            "log.dir",
            "metadata.log.dir");

    /**
     * How often the broker deletes what is past its topic's retention: 2 s, in which a job at full
     * speed writes about 100 MB (Kafka's default, 5 minutes, let 16 GB pile up in between).
     */
    public static final Duration RETENTION_CHECK_INTERVAL = Duration.ofSeconds(2);

    /** Attempts to start when an ephemeral port turned out to be taken in the meantime. */
    private static final int START_ATTEMPTS = 3;

    private final Path logDir;
    private final boolean temporary;
    private final int requestedPort;
    private final Map<String, String> extraProperties;
    /** SASL/PLAIN users and passwords, the first the administrator; empty: no authentication. */
    private final Map<String, String> saslUsers;

    private KafkaRaftServer server;
    private String clusterId;
    private int port;
    private int controllerPort;
    private boolean closed;
    private Duration lastStartTime;

    private EmbeddedKafka(Builder b) {
        this.temporary = b.dataDir == null;
        this.requestedPort = b.port;
        this.extraProperties = Map.copyOf(b.properties);
        this.saslUsers = new LinkedHashMap<>(b.saslUsers);
        if (b.logLevel != null) {
            KafkaLogging.setLevel(b.logLevel);
        } else {
            KafkaLogging.useQuietDefault();
        }
        try {
            this.logDir = temporary
                    ? Files.createTempDirectory("ata-kafka-")
                    : b.dataDir.toAbsolutePath().normalize();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for Kafka's log", e);
        }
    }

    /** A builder: temporary log directory, ephemeral port, no extra properties. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the broker and returns when it accepts clients: about 2 s in a fresh JVM (class loading;
     * more on a busy machine), well under 1 s for a restart in the same JVM. Formats the log
     * directory first if it has never been used. Does nothing if the broker is running.
     *
     * @return this broker
     * @throws UncheckedIOException     if the port is taken or the directory cannot be used
     * @throws IllegalStateException    if the broker was closed
     * @throws IllegalArgumentException if the data directory holds something other than a Kafka log
     */
    public synchronized EmbeddedKafka start() {
        if (closed) {
            throw new IllegalStateException("this embedded Kafka broker was closed; build a new one");
        }
        if (server != null) {
            return this;
        }
        long begin = System.nanoTime();
        prepareLogDir();
        if (port == 0 && requestedPort != 0) {
            checkPortFree(requestedPort);
        }
        RuntimeException failure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            if (port == 0 || failure != null) {
                port = requestedPort != 0 ? requestedPort : freePort();
            }
            if (controllerPort == 0 || failure != null || controllerPort == port) {
                controllerPort = freePortOtherThan(port);
            }
            KafkaRaftServer candidate = new KafkaRaftServer(config(), Time.SYSTEM);
            try {
                candidate.startup();
                server = candidate;
                lastStartTime = Duration.ofNanos(System.nanoTime() - begin);
                return this;
            } catch (RuntimeException e) {
                try {
                    shutDown(candidate);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                failure = e;
                if (!isBindFailure(e)) {
                    break;
                }
            }
        }
        if (isBindFailure(failure)) {
            throw new UncheckedIOException(
                    "Kafka cannot listen on " + HOST + ":" + port + " or " + HOST + ":" + controllerPort,
                    new BindException(rootMessage(failure)));
        }
        throw failure;
    }

    /**
     * Shuts the broker down cleanly and waits until it has stopped; the log directory is kept, so
     * {@link #start()} brings the same topics and records back. Does nothing if not running.
     */
    public synchronized void stop() {
        if (server != null) {
            KafkaRaftServer s = server;
            server = null;
            shutDown(s);
        }
    }

    /** Stops the broker and deletes the log directory if it is a temporary one. Can be called twice. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stop();
        if (temporary) {
            try {
                Utils.delete(logDir.toFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete Kafka's temporary log directory " + logDir, e);
            }
        }
    }

    /** Whether the broker is running: started and neither stopped nor closed. */
    public synchronized boolean isRunning() {
        return server != null;
    }

    /**
     * {@code 127.0.0.1:PORT}, the value of the clients' {@code bootstrap.servers}; the same after a
     * restart.
     *
     * @throws IllegalStateException if the broker has never been started
     */
    public synchronized String bootstrapServers() {
        return HOST + ":" + port();
    }

    /**
     * The port clients connect to.
     *
     * @throws IllegalStateException if the broker has never been started
     */
    public synchronized int port() {
        if (port == 0) {
            throw new IllegalStateException("the embedded Kafka broker has not been started");
        }
        return port;
    }

    /** The cluster id written into the log directory when it was formatted. */
    public synchronized String clusterId() {
        if (clusterId == null) {
            throw new IllegalStateException("the embedded Kafka broker has not been started");
        }
        return clusterId;
    }

    /** The log directory (data and KRaft metadata). */
    public Path logDir() {
        return logDir;
    }

    /** Whether {@link #close()} deletes the log directory (it was created by this broker). */
    public boolean isTemporary() {
        return temporary;
    }

    /** How long the last {@link #start()} took, formatting included; null before the first start. */
    public synchronized Duration lastStartTime() {
        return lastStartTime;
    }

    /**
     * A new client config with {@code bootstrap.servers} (and with SASL on, the administrator's
     * credentials); add serializers, group id, etc.
     */
    public Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        if (!saslUsers.isEmpty()) {
            Map.Entry<String, String> admin = saslUsers.entrySet().iterator().next();
            config.putAll(saslClientConfig(admin.getKey(), admin.getValue()));
        }
        return config;
    }

    /**
     * The client settings of a SASL/PLAIN user of this broker (without {@code bootstrap.servers}),
     * as a {@code --command-config} file holds them.
     */
    public static Map<String, String> saslClientConfig(String user, String password) {
        return Map.of(
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
                SaslConfigs.SASL_MECHANISM, "PLAIN",
                SaslConfigs.SASL_JAAS_CONFIG, plainLogin(user, password, Map.of()));
    }

    /** A JAAS line for PlainLoginModule: the user it logs in as, and (on a broker) the users it knows. */
    private static String plainLogin(String user, String password, Map<String, String> knownUsers) {
        StringBuilder jaas = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
        jaas.append(" username=\"")
                .append(user)
                .append("\" password=\"")
                .append(password)
                .append('"');
        knownUsers.forEach((u, pw) ->
                jaas.append(" user_").append(u).append("=\"").append(pw).append('"'));
        return jaas.append(';').toString();
    }

    /** A new Admin client for this broker; the caller closes it. */
    public Admin admin() {
        return Admin.create(clientConfig());
    }

    /**
     * Creates the topics that do not exist yet and waits until they are ready, see
     * {@link TopicAdmin#createTopics(Admin, Collection, Duration)}.
     *
     * @return the names of the topics created
     */
    public List<String> createTopics(Collection<TopicSpec> topics) {
        try (Admin admin = admin()) {
            return TopicAdmin.createTopics(admin, topics);
        }
    }

    /** {@link #createTopics(Collection)} for the given topics. */
    public List<String> createTopics(TopicSpec... topics) {
        return createTopics(Arrays.asList(topics));
    }

    /** Creates one topic (unless it exists) and waits until it is ready. */
    public void createTopic(String name, int partitions, boolean compacted) {
        createTopics(List.of(new TopicSpec(name, partitions, compacted)));
    }

    @Override
    public String toString() {
        return "EmbeddedKafka[" + (port == 0 ? "not started" : bootstrapServers()) + ", " + logDir
                + (isRunning() ? ", running]" : ", stopped]");
    }

    private KafkaConfig config() {
        try {
            return new KafkaConfig(brokerProperties(), false);
        } catch (ConfigException e) {
            throw new IllegalArgumentException("invalid Kafka broker setting: " + e.getMessage(), e);
        }
    }

    /** The broker's configuration: single-node settings, then the builder's extra properties. */
    Map<String, String> brokerProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        String clients = saslUsers.isEmpty() ? BROKER_LISTENER : SASL_LISTENER;
        p.put(
                "listeners",
                clients + "://" + HOST + ":" + port + "," + CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        p.put("advertised.listeners", clients + "://" + HOST + ":" + port);
        p.put("listener.security.protocol.map", clients + ":" + clients + "," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", clients);
        if (!saslUsers.isEmpty()) {
            // SASL/PLAIN on the client listener, the standard authorizer, and the administrator (the
            // first user) as super user; the node's own controller connections are PLAINTEXT on a
            // listener only it knows, so ANONYMOUS, which must be a super user too.
            Map.Entry<String, String> admin = saslUsers.entrySet().iterator().next();
            String listener = "listener.name." + SASL_LISTENER.toLowerCase(Locale.ROOT) + ".plain.";
            p.put("sasl.enabled.mechanisms", "PLAIN");
            p.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
            p.put(listener + "sasl.jaas.config", plainLogin(admin.getKey(), admin.getValue(), saslUsers));
            p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.put("super.users", "User:" + admin.getKey() + ";User:ANONYMOUS");
            p.put("allow.everyone.if.no.acl.found", "false");
        }
        p.put("log.dirs", logDir.toString());
        p.put("metadata.log.dir", logDir.toString());

        // one node: every internal topic with one replica
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "false");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        // transactions (and so Streams exactly_once_v2): the transaction state log must fit one
        // broker, and the share groups' state topic likewise
        for (String log : List.of("transaction.state.log", "share.coordinator.state.topic")) {
            p.put(log + ".replication.factor", "1");
            p.put(log + ".min.isr", "1");
            p.put(log + ".num.partitions", "1");
        }
        // A transaction left open by a dead process (a broker instance or agent killed with it open)
        // blocks read_committed readers of its partitions until the coordinator aborts it: at
        // transaction.timeout.ms, when its sweep next runs (Kafka's default every 10 s, so up to 10 s
        // more). A sweep every second bounds that wait by the timeout itself.
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");

        // a small footprint: the log cleaner would take 128 MiB of heap for compaction
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 * 1024 * 1024));
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("background.threads", "2");
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("log.flush.offset.checkpoint.interval.ms", "60000");

        // A bounded log directory. ATA's topics carry their own retention and segment sizes
        // (TopicConfigs); these are the defaults of the others: Kafka's consumer offsets and
        // transaction state (compacted, in segments of 100 MiB), whatever else is created
        // (1 GiB segments that do not close within a run, so nothing of them is ever deleted or
        // compacted), and how soon the broker acts on retention: every 5 minutes by default, in
        // which a job at full speed writes 16 GB; deleted segments then stayed on disk a minute.
        p.put("log.segment.bytes", Long.toString(TopicConfigs.COMPACTED_SEGMENT_BYTES));
        p.put("offsets.topic.segment.bytes", Long.toString(TopicConfigs.COMPACTED_SEGMENT_BYTES));
        p.put("transaction.state.log.segment.bytes", Long.toString(TopicConfigs.COMPACTED_SEGMENT_BYTES));
        p.put("log.index.size.max.bytes", Long.toString(TopicConfigs.INDEX_BYTES));
        p.put("log.segment.delete.delay.ms", Long.toString(TopicConfigs.FILE_DELETE_DELAY.toMillis()));
        p.put("log.retention.check.interval.ms", Long.toString(RETENTION_CHECK_INTERVAL.toMillis()));
        // the cleaner looks for a log to compact this often when it found none
        p.put("log.cleaner.backoff.ms", "1000");
        // unfenced sooner after start
        p.put("broker.heartbeat.interval.ms", "500");
        // A transaction's first write while the same producer's previous transaction is still
        // writing its commit markers is refused by the coordinator and retried by the partition
        // leader after this backoff (Kafka's default: 20 ms; it keeps retrying for up to
        // add.partitions.to.txn.retry.backoff.max.ms, default 100). The control plane commits back
        // to back by design (the broker's stream thread commits CLOSED k, then the assignments of
        // k+1), so the default put 20 ms into one round in six; markers on one broker take about a
        // millisecond.
        p.put("add.partitions.to.txn.retry.backoff.ms", "1");

        p.putAll(extraProperties);
        return p;
    }

    /** Formats the log directory unless it already holds a formatted Kafka log; reads the cluster id. */
    private void prepareLogDir() {
        Path metaProperties = logDir.resolve("meta.properties");
        try {
            if (Files.isRegularFile(metaProperties)) {
                clusterId = readClusterId(metaProperties);
                return;
            }
            Files.createDirectories(logDir);
            try (Stream<Path> entries = Files.list(logDir)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalArgumentException("data directory " + logDir + " is not empty and not a Kafka "
                            + "log directory (no meta.properties): give an empty or new directory");
                }
            }
            String newClusterId = Uuid.randomUuid().toString();
            new Formatter()
                    .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                    .setClusterId(newClusterId)
                    .setNodeId(NODE_ID)
                    .setControllerListenerName(CONTROLLER_LISTENER)
                    .addDirectory(logDir.toString())
                    .setMetadataLogDirectory(logDir.toString())
                    .setReleaseVersion(MetadataVersion.latestProduction())
                    .run();
            clusterId = newClusterId;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare Kafka's log directory " + logDir, e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot format Kafka's log directory " + logDir + ": " + e.getMessage(), e);
        }
    }

    private static String readClusterId(Path metaProperties) throws IOException {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(metaProperties)) {
            props.load(in);
        }
        String id = props.getProperty("cluster.id");
        if (id == null) {
            throw new IllegalArgumentException(metaProperties + " has no cluster.id: not a KRaft log directory");
        }
        String node = props.getProperty("node.id");
        if (node != null && !node.equals(Integer.toString(NODE_ID))) {
            throw new IllegalArgumentException(metaProperties + " belongs to node " + node + ", not to the embedded "
                    + "broker's node " + NODE_ID);
        }
        return id;
    }

    private static void shutDown(KafkaRaftServer s) {
        try {
            s.shutdown();
        } finally {
            s.awaitShutdown();
        }
    }

    /** A port that was free a moment ago (with SO_REUSEADDR, so Kafka can bind it at once). */
    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + HOST, e);
        }
    }

    /**
     * A free port other than {@code taken}: a port picked and let go a moment before may be handed
     * out again at once, and two listeners on one port stop Kafka from starting.
     */
    private static int freePortOtherThan(int taken) {
        int port = freePort();
        while (port == taken) {
            port = freePort();
        }
        return port;
    }

    private static void checkPortFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "port " + port + " on " + HOST + " is in use (by another Kafka broker?): "
                            + "choose another port, or 0 for any free one",
                    e);
        }
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return Objects.requireNonNullElse(t.getMessage(), t.toString());
    }

    /** Builds an {@link EmbeddedKafka}; {@link #start()} builds and starts it. */
    public static final class Builder {
        private Path dataDir;
        private int port;
        private String logLevel;
        private final Map<String, String> properties = new LinkedHashMap<>();
        private final Map<String, String> saslUsers = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Clients must log in with SASL/PLAIN as one of {@code users} (name to password), and the
         * standard authorizer enforces ACLs: a user may do only what an ACL allows. The first user
         * is the administrator, a super user, whose credentials {@link #clientConfig()} carries.
         * {@link #saslClientConfig} gives the client settings of any user.
         */
        public Builder saslPlain(Map<String, String> users) {
            if (users.isEmpty()) {
                throw new IllegalArgumentException("SASL needs at least one user, the administrator");
            }
            users.forEach((user, password) -> {
                if (!user.matches("[A-Za-z0-9._-]+") || password.contains("\"")) {
                    throw new IllegalArgumentException("SASL user '" + user + "': names are letters, digits, "
                            + "'.', '_' or '-', and passwords have no '\"'");
                }
            });
            saslUsers.clear();
            saslUsers.putAll(users);
            return this;
        }

        /**
         * Keep Kafka's log in {@code dir} (created if missing) instead of a temporary directory:
         * it is not deleted on close, and a later broker on the same directory finds the data.
         * The directory must be new, empty, or a log directory of an earlier embedded broker.
         */
        public Builder dataDir(Path dir) {
            this.dataDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** The port clients connect to; 0 (the default) for an ephemeral one. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, not " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * One more broker setting, e.g. {@code brokerProperty("log.retention.ms", "60000")}; it
         * overrides the embedded defaults. Listeners, roles, node id and directories are managed
         * by {@link EmbeddedKafka} and refused here.
         */
        public Builder brokerProperty(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (MANAGED.contains(key)) {
                throw new IllegalArgumentException("broker setting " + key + " is managed by the embedded broker; "
                        + "use the builder's port or dataDir instead");
            }
            properties.put(key, value);
            return this;
        }

        /** {@link #brokerProperty} for each entry. */
        public Builder brokerProperties(Map<String, String> more) {
            more.forEach(this::brokerProperty);
            return this;
        }

        /**
         * The level of Kafka's loggers (trace, debug, info, warn, error, off) for slf4j-simple;
         * without it WARN, unless set by system property (see {@link KafkaLogging}).
         */
        public Builder logLevel(String level) {
            this.logLevel = KafkaLogging.checkLevel(level);
            return this;
        }

        /** The broker, not started yet. */
        public EmbeddedKafka build() {
            return new EmbeddedKafka(this);
        }

        /** The broker, started. */
        public EmbeddedKafka start() {
            EmbeddedKafka kafka = build();
            try {
                return kafka.start();
            } catch (RuntimeException e) {
                try {
                    kafka.close();
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }
}
