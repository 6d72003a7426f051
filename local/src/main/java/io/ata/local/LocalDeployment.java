package io.ata.local;

import io.ata.broker.BrokerApp;
import io.ata.broker.BrokerHttpServer;
import io.ata.broker.BrokerSettings;
import io.ata.local.kafka.EmbeddedKafka;
import io.ata.local.kafka.TopicAdmin;
import io.ata.platform.kafka.ClientProperties;
import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.platform.registry.SchemaRegistryServer;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.registry.SchemaVersion;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.trainer.TrainerHost;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.SupervisedAgent;
import io.ata.workeragent.WorkerAgent;
import io.ata.workloads.time.TaskTimeDistribution;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The whole system on one machine: Kafka (embedded KRaft, or an existing cluster), a Schema
 * Registry (embedded, kept in the {@link Topics#schemas() schemas topic}, also served over HTTP),
 * the topics, the broker, a fleet of worker agents
 * with emulated heterogeneity, and trainers. {@code ata demo} and the end-to-end tests drive it.
 * Every part it starts, or configures ({@link #agentConfig}, {@link #trainerConfig}), puts its
 * meters in the deployment's one {@link #meters() registry}.
 */
public final class LocalDeployment implements AutoCloseable {
    private final EmbeddedKafka kafka;
    private final String bootstrapServers;
    private final ClientProperties clientProperties;
    /** The running embedded registry, replaced by {@link #restartRegistry()}; null when the user's is used. */
    private volatile EmbeddedSchemaRegistry registry;
    /** Serves the running embedded registry over HTTP, for other processes and tools; null with the user's. */
    private volatile SchemaRegistryServer registryServer;
    /** What the parts are given: the user's registry, or always the running embedded one, as a URL would be. */
    private final SchemaRegistryClient registryClient;

    private final Topics topics;
    private final Path workDir;
    private final MeterRegistry meters;
    private final Map<String, SupervisedAgent<WorkerAgent>> agents = new LinkedHashMap<>();
    private final List<Trainer> trainers = new ArrayList<>();
    private TrainerHost trainerHost;
    private BrokerSettings brokerSettings;
    private BrokerApp broker;
    /** The broker's interactive queries over HTTP, if {@link #startBroker(int)} was asked for them. */
    private BrokerHttpServer brokerHttp;

    private final List<BrokerApp> extraBrokers = new ArrayList<>();
    private int brokerGeneration;

    private LocalDeployment(
            EmbeddedKafka kafka,
            String bootstrapServers,
            Map<String, Object> clientProperties,
            Topics topics,
            BrokerSettings brokerSettings,
            MeterRegistry meters,
            SchemaRegistryClient usersRegistry) {
        this.kafka = kafka;
        this.meters = meters;
        this.bootstrapServers = bootstrapServers;
        this.clientProperties = ClientProperties.of(clientProperties);
        this.topics = topics;
        this.brokerSettings = brokerSettings.withTopicPrefix(topics.prefix());
        if (usersRegistry != null) {
            this.registryClient = usersRegistry;
        } else {
            this.registry = EmbeddedSchemaRegistry.persistent(clientProperties(), topics.schemas());
            this.registryServer = SchemaRegistryServer.start(registry);
            this.registryClient = new RunningRegistry();
        }
        try {
            this.workDir = Files.createTempDirectory("ata-local-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (Admin admin = Admin.create(adminProperties())) {
            TopicAdmin.createTopics(admin, topics);
        }
    }

    /** Settings under which the broker finds a worker dead after 3 s of silence, checked every 250 ms: for tests of failures. */
    public static final BrokerSettings QUICK_LIVENESS =
            BrokerSettings.defaults().withLiveness(Duration.ofSeconds(3), Duration.ofMillis(250));

    /**
     * Starts an embedded Kafka broker tuned for quick failure detection (agents may use session
     * timeouts down to 1 s) and creates the topics.
     */
    public static LocalDeployment embedded(Topics topics, BrokerSettings settings) {
        return builder(topics).brokerSettings(settings).start();
    }

    /** {@link #embedded(Topics, BrokerSettings)}, the parts' meters in {@code meters}. */
    public static LocalDeployment embedded(Topics topics, BrokerSettings settings, MeterRegistry meters) {
        return builder(topics).brokerSettings(settings).meters(meters).start();
    }

    /** Uses an existing Kafka cluster; {@code clientProperties} carry its security settings. */
    public static LocalDeployment existing(
            String bootstrapServers, Map<String, Object> clientProperties, Topics topics, BrokerSettings settings) {
        return builder(topics)
                .existingCluster(bootstrapServers, clientProperties)
                .brokerSettings(settings)
                .start();
    }

    /** A deployment on {@code topics}: by default an embedded Kafka, the embedded registry, default broker settings. */
    public static Builder builder(Topics topics) {
        return new Builder(topics);
    }

    /** What a deployment runs on: which Kafka, which registry, the broker's settings, where meters go. */
    public static final class Builder {
        private final Topics topics;
        private String bootstrapServers;
        private Map<String, Object> clientProperties = Map.of();
        private SchemaRegistryClient usersRegistry;
        private BrokerSettings brokerSettings = BrokerSettings.defaults();
        private MeterRegistry meters = new SimpleMeterRegistry();

        private Builder(Topics topics) {
            this.topics = topics;
        }

        /** An existing cluster instead of the embedded Kafka; {@code clientProperties} carry its security settings. */
        public Builder existingCluster(String bootstrapServers, Map<String, Object> clientProperties) {
            this.bootstrapServers = bootstrapServers;
            this.clientProperties = Map.copyOf(clientProperties);
            return this;
        }

        /** The user's Schema Registry instead of the embedded one (which is then neither started nor served). */
        public Builder registry(SchemaRegistryClient registry) {
            this.usersRegistry = registry;
            return this;
        }

        public Builder brokerSettings(BrokerSettings settings) {
            this.brokerSettings = settings;
            return this;
        }

        /** The registry every part puts its meters in. */
        public Builder meters(MeterRegistry meters) {
            this.meters = meters;
            return this;
        }

        /** Starts Kafka (if embedded) and the registry (if embedded), and creates the topics. */
        public LocalDeployment start() {
            if (bootstrapServers != null) {
                return new LocalDeployment(
                        null, bootstrapServers, clientProperties, topics, brokerSettings, meters, usersRegistry);
            }
            EmbeddedKafka kafka = EmbeddedKafka.builder()
                    .brokerProperty("group.min.session.timeout.ms", "1000")
                    .start();
            try {
                return new LocalDeployment(
                        kafka, kafka.bootstrapServers(), Map.of(), topics, brokerSettings, meters, usersRegistry);
            } catch (RuntimeException e) {
                kafka.close();
                throw e;
            }
        }
    }

    private Properties adminProperties() {
        Properties p = new Properties();
        p.putAll(clientProperties());
        return p;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The Schema Registry every part uses: the running embedded one, across {@link #restartRegistry() restarts}. */
    public SchemaRegistryClient registry() {
        return registryClient;
    }

    /**
     * Stops the embedded registry and starts a new one on the same schemas topic and HTTP port, as
     * a restarted broker process does with its embedded registry: the new one knows only what it
     * reads from the topic.
     */
    public synchronized void restartRegistry() {
        if (registryServer == null) {
            throw new IllegalStateException("the deployment uses the user's registry, not an embedded one");
        }
        int port = registryServer.port();
        registryServer.close();
        registry.close();
        registry = EmbeddedSchemaRegistry.persistent(clientProperties(), topics.schemas());
        registryServer = SchemaRegistryServer.start(registry, port);
    }

    /** The embedded registry's HTTP address, for tools that read the topics. */
    public String registryUrl() {
        if (registryServer == null) {
            throw new IllegalStateException("the deployment uses the user's registry, not an embedded one");
        }
        return registryServer.url();
    }

    /** This deployment's topics. */
    public Topics topics() {
        return topics;
    }

    public EmbeddedKafka kafka() {
        return kafka;
    }

    /**
     * This deployment's own directory: the broker instances keep their state under it
     * ({@code broker-state}, {@code broker-state-2}, ...). Deleted on {@link #close()}.
     */
    public Path workDirectory() {
        return workDir;
    }

    /** The registry of every part's meters. */
    public MeterRegistry meters() {
        return meters;
    }

    /** The configuration of a client of this deployment's cluster: its client properties and bootstrap servers. */
    public Map<String, Object> clientProperties() {
        return clientProperties.forClient(bootstrapServers);
    }

    /** How long a broker instance may take to reach RUNNING. */
    public static final Duration BROKER_STARTUP_TIMEOUT = Duration.ofSeconds(60);

    /** Starts (or restarts) the broker; its state directory survives restarts. */
    public synchronized BrokerApp startBroker() throws InterruptedException {
        if (broker != null) {
            throw new IllegalStateException("the broker is running");
        }
        broker = startBrokerApp(workDir.resolve("broker-state"), null);
        brokerGeneration++;
        return broker;
    }

    /**
     * Starts the broker with its interactive queries served over HTTP on loopback ({@code httpPort},
     * 0 for any free port), as {@code ata broker} serves them, and returns the queries' URL.
     */
    public synchronized String startBroker(int httpPort) throws InterruptedException {
        if (broker != null) {
            throw new IllegalStateException("the broker is running");
        }
        BrokerHttpServer http = new BrokerHttpServer("127.0.0.1", httpPort); // bound first: the broker advertises it
        try {
            broker = startBrokerApp(workDir.resolve("broker-state"), http);
        } catch (RuntimeException | InterruptedException e) {
            http.close();
            throw e;
        }
        brokerHttp = http;
        brokerGeneration++;
        return http.url();
    }

    /**
     * Starts one more instance of the broker (same application id, a state directory of its own):
     * Kafka Streams splits the partitions of {@code rounds} and so the jobs between the instances.
     * Closed with the deployment.
     */
    public synchronized BrokerApp startExtraBrokerInstance() throws InterruptedException {
        BrokerApp extra = startBrokerApp(workDir.resolve("broker-state-" + (extraBrokers.size() + 2)), null);
        extraBrokers.add(extra);
        return extra;
    }

    /** Starts an instance and waits until it runs; with {@code http}, serving its queries there. */
    private BrokerApp startBrokerApp(Path stateDir, BrokerHttpServer http) throws InterruptedException {
        Properties props = new Properties();
        props.putAll(clientProperties());
        props.put("application.id", topics.brokerApplicationId());
        if (kafka != null) {
            // Kafka Streams does not leave its group on close, so a restarted broker waits for the
            // old members' sessions to expire (45 s by default); the embedded cluster accepts short ones.
            props.put("main.consumer.session.timeout.ms", 6000);
            props.put("main.consumer.heartbeat.interval.ms", 1000);
        }
        BrokerApp app = new BrokerApp(
                        props, brokerSettings, registryClient, stateDir, http == null ? null : http.endpoint(), meters)
                .start();
        if (http != null) {
            http.start(app);
        }
        try {
            app.awaitRunning(BROKER_STARTUP_TIMEOUT);
        } catch (IllegalStateException e) {
            app.close();
            throw new RunFailure(
                    "the broker did not start within " + BROKER_STARTUP_TIMEOUT.toSeconds() + " s: " + e.getMessage());
        }
        return app;
    }

    public synchronized void stopBroker() {
        if (brokerHttp != null) {
            brokerHttp.close();
            brokerHttp = null;
        }
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    public synchronized BrokerApp broker() {
        return broker;
    }

    /** The settings the broker instances of this deployment start with. */
    public synchronized BrokerSettings brokerSettings() {
        return brokerSettings;
    }

    public synchronized void setBrokerSettings(BrokerSettings settings) {
        this.brokerSettings = settings.withTopicPrefix(topics.prefix());
    }

    /**
     * The common agent settings: this deployment's topics, and quick failure detection. The
     * embedded broker accepts 3 s sessions; a real cluster's default minimum is 6 s, so there
     * agents keep a 10 s session.
     */
    public AgentConfig.Builder agentConfig(String workerId) {
        return AgentConfig.builder(bootstrapServers)
                .clientProperties(clientProperties.asMap())
                .clientProperty("session.timeout.ms", kafka != null ? 3000 : 10_000)
                .clientProperty("heartbeat.interval.ms", kafka != null ? 500 : 2000)
                .topicPrefix(topics.prefix())
                .groupId(topics.workerGroup())
                .workerId(workerId)
                .heartbeatInterval(Duration.ofMillis(500))
                .meterRegistry(meters);
    }

    /** Starts an agent whose every task takes a time drawn from {@code time} (milliseconds). */
    public synchronized WorkerAgent startAgent(String workerId, TaskTimeDistribution time) {
        return startAgent(agentConfig(workerId).emulatedTime(time).build());
    }

    /**
     * Starts agent-1, agent-2, ... whose tasks take {@link #aboutMs} {@code meanMs[i]} each, and waits
     * until the broker sees them all.
     */
    public void startFleet(Duration timeout, double... meanMs) throws InterruptedException {
        for (int i = 0; i < meanMs.length; i++) {
            startAgent("agent-" + (i + 1), aboutMs(meanMs[i]));
        }
        awaitFleet(timeout);
    }

    /** Task times of mean {@code mean} ms: half of it fixed, half exponential, so they vary but never vanish. */
    public static TaskTimeDistribution aboutMs(double mean) {
        return new TaskTimeDistribution.Shifted(mean / 2, new TaskTimeDistribution.Exponential(mean / 2));
    }

    public synchronized WorkerAgent startAgent(AgentConfig config) {
        if (agents.containsKey(config.workerId())) {
            throw new IllegalArgumentException("agent " + config.workerId() + " exists");
        }
        // started over with new clients if it loses its producer's epoch, as 'ata worker' is
        SupervisedAgent<WorkerAgent> agent = new SupervisedAgent<>(
                config,
                meters -> new WorkerAgent(
                        config,
                        registryClient,
                        KafkaClientFactory.KAFKA,
                        Clock.systemUTC(),
                        meters.of(config.workerId())),
                Clock.systemUTC());
        agent.start();
        agents.put(config.workerId(), agent);
        return agent.current();
    }

    /** The agent running now under {@code workerId} (a new one after each start over); null if none was started. */
    public synchronized WorkerAgent agent(String workerId) {
        SupervisedAgent<WorkerAgent> agent = agents.get(workerId);
        return agent == null ? null : agent.current();
    }

    /** The supervisor of agent {@code workerId}: how often it started the agent over. */
    public synchronized SupervisedAgent<WorkerAgent> supervisedAgent(String workerId) {
        return agents.get(workerId);
    }

    /** The agents running now, one per worker id started. */
    public synchronized List<WorkerAgent> agents() {
        return agents.values().stream().map(SupervisedAgent::current).toList();
    }

    private synchronized List<SupervisedAgent<WorkerAgent>> supervisedAgents() {
        return List.copyOf(agents.values());
    }

    /** Stops an agent abruptly, as a crash would; it stays listed. */
    public synchronized void killAgent(String workerId) {
        agents.get(workerId).kill();
    }

    /**
     * Kills the agent {@code workerId} if it runs, as a crash would, and starts a new one with the
     * same settings and id in its place: a process restarted under the same id, which takes its
     * task partitions back (static membership) and fences the old one's transactions.
     */
    public synchronized WorkerAgent restartAgent(String workerId) {
        SupervisedAgent<WorkerAgent> old = agents.get(workerId);
        if (old == null) {
            throw new IllegalArgumentException("no agent " + workerId);
        }
        old.kill();
        agents.remove(workerId);
        return startAgent(old.current().config());
    }

    /**
     * Waits until the broker sees every running agent as a live member owning task partitions: the
     * state in which rounds can be allocated to all of them. Agents killed or closed on purpose are
     * not waited for; one that stopped by failing fails the wait.
     *
     * @throws RunFailure if an agent failed, or the fleet is not in within {@code timeout}
     */
    public void awaitFleet(Duration timeout) throws InterruptedException {
        boolean joined = awaitFleet(timeout, pause -> {
            try {
                Thread.sleep(pause.toMillis());
                return false;
            } catch (InterruptedException e) {
                return true;
            }
        });
        if (!joined) {
            throw new InterruptedException("interrupted while waiting for the fleet");
        }
    }

    /**
     * {@link #awaitFleet(Duration)} that gives up when {@code stop} is requested.
     *
     * @return false if a stop was requested first
     */
    public boolean awaitFleet(Duration timeout, StopSignal stop) {
        return awaitFleet(timeout, stop::await);
    }

    /** The fleet wait; {@code pause} waits between looks and says whether to give up. */
    private boolean awaitFleet(Duration timeout, Predicate<Duration> pause) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> missing = new ArrayList<>();
            for (SupervisedAgent<WorkerAgent> a : supervisedAgents()) {
                if (!a.isRunning()) {
                    if (a.failure().isPresent()) {
                        throw new RunFailure("agent " + a.workerId() + " stopped: "
                                + a.failure().get());
                    }
                    continue;
                }
                if (a.current().ownedPartitions().isEmpty() || !isMember(a.workerId())) {
                    missing.add(a.workerId());
                }
            }
            if (missing.isEmpty()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                throw new RunFailure("agents not yet members owning task partitions after " + timeout.toSeconds()
                        + " s: " + missing);
            }
            if (pause.test(Duration.ofMillis(50))) {
                return false;
            }
        }
    }

    /** Whether the broker's membership store lists the worker with task partitions. */
    private boolean isMember(String workerId) {
        try {
            var h = broker().membership().get(workerId);
            return h != null && !h.getPartitions().isEmpty();
        } catch (InvalidStateStoreException e) {
            return false; // the store is (re)initialising
        }
    }

    /**
     * The common trainer settings for a job. Its seed is the job's own ({@link TrainerConfig#seedOf}):
     * one seed for every job made each job's tie-break the same, so with {@code B} below the fleet
     * every job gave its first round to the same worker.
     */
    public TrainerConfig.Builder trainerConfig(String job, String policy, int batch, long rounds) {
        return TrainerConfig.builder()
                .bootstrapServers(bootstrapServers)
                .clientProperties(clientProperties.asMap())
                .topicPrefix(topics.prefix())
                .job(job)
                .policy(policy)
                .batch(batch)
                .maxRounds(rounds)
                .meterRegistry(meters);
    }

    public synchronized Trainer startTrainer(TrainerConfig config) {
        Trainer trainer = new Trainer(config, registryClient).start();
        trainers.add(trainer);
        return trainer;
    }

    /**
     * The deployment's trainer host, started at the first call: many jobs' trainers over one reader
     * of {@code gradients} ({@link #startHostedTrainer}).
     */
    public synchronized TrainerHost trainerHost() {
        if (trainerHost == null) {
            trainerHost = new TrainerHost(clientProperties(), topics, registryClient, KafkaClientFactory.KAFKA, meters)
                    .start();
        }
        return trainerHost;
    }

    /** Starts a trainer reading {@code gradients} through {@link #trainerHost()}. */
    public synchronized Trainer startHostedTrainer(TrainerConfig config) {
        Trainer trainer = trainerHost().trainer(config).start();
        trainers.add(trainer);
        return trainer;
    }

    /**
     * Trains a job to its last round and closes its trainer: what a bench does with each job.
     *
     * @throws RunFailure if the job has not closed its last round within {@code timeout}
     */
    public void trainToEnd(TrainerConfig config, Duration timeout) throws InterruptedException {
        Trainer trainer = startTrainer(config);
        if (!trainer.awaitRounds(config.trainingJob().maxRounds(), timeout)) {
            throw new RunFailure("job " + config.job() + " stalled at round "
                    + trainer.metrics().lastClosedRound() + " of "
                    + config.trainingJob().maxRounds());
        }
        trainer.close();
    }

    public Trainer startTrainer(String job, String policy, int batch, long rounds, RoundListener listener) {
        return startTrainer(
                trainerConfig(job, policy, batch, rounds).listener(listener).build());
    }

    @Override
    public synchronized void close() {
        Trainer.closeAll(trainers);
        if (trainerHost != null) {
            trainerHost.close();
        }
        closeAgents();
        extraBrokers.forEach(BrokerApp::close);
        stopBroker();
        if (registryServer != null) {
            registryServer.close();
            registry.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        deleteQuietly(workDir);
    }

    /** Closes the running agents in parallel: each leaves its group, which takes a moment. */
    private void closeAgents() {
        List<Thread> closing = new ArrayList<>();
        for (SupervisedAgent<WorkerAgent> a : agents.values()) {
            if (a.isRunning()) {
                Thread t = new Thread(() -> a.close(Duration.ofSeconds(10)), "ata-close-" + a.workerId());
                t.start();
                closing.add(t);
            }
        }
        for (Thread t : closing) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Hands every call to the registry running at the time, so parts outlive {@link #restartRegistry()}. */
    private final class RunningRegistry implements SchemaRegistryClient {
        @Override
        public int register(String subject, Schema schema) {
            return registry.register(subject, schema);
        }

        @Override
        public Optional<SchemaVersion> lookup(String subject, Schema schema) {
            return registry.lookup(subject, schema);
        }

        @Override
        public Schema getById(int id) {
            return registry.getById(id);
        }

        @Override
        public SchemaVersion latest(String subject) {
            return registry.latest(subject);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp directory
        }
    }
}
