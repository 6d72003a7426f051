package io.ata.local;

import io.ata.broker.BrokerApp;
import io.ata.broker.BrokerSettings;
import io.ata.local.kafka.EmbeddedKafka;
import io.ata.local.kafka.TopicAdmin;
import io.ata.platform.kafka.ClientProperties;
import io.ata.platform.registry.SchemaRegistryServer;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.registry.SchemaVersion;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.WorkerAgent;
import io.ata.workloads.time.TaskTimeDistribution;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.kafka.clients.admin.Admin;

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
    /** The running registry; replaced by {@link #restartRegistry()}. */
    private volatile EmbeddedSchemaRegistry registry;
    /** Serves the running registry over HTTP, for other processes and tools. */
    private volatile SchemaRegistryServer registryServer;
    /** What the parts are given: always the running registry, as a URL would be. */
    private final SchemaRegistryClient registryClient = new RunningRegistry();

    private final Topics topics;
    private final Path workDir;
    private final MeterRegistry meters;
    private final Map<String, WorkerAgent> agents = new LinkedHashMap<>();
    private final List<Trainer> trainers = new ArrayList<>();
    private BrokerSettings brokerSettings;
    private BrokerApp broker;
    private final List<BrokerApp> extraBrokers = new ArrayList<>();
    private int brokerGeneration;

    private LocalDeployment(
            EmbeddedKafka kafka,
            String bootstrapServers,
            Map<String, Object> clientProperties,
            Topics topics,
            BrokerSettings brokerSettings,
            MeterRegistry meters) {
        this.kafka = kafka;
        this.meters = meters;
        this.bootstrapServers = bootstrapServers;
        this.clientProperties = ClientProperties.of(clientProperties);
        this.topics = topics;
        this.brokerSettings = brokerSettings.withTopicPrefix(topics.prefix());
        this.registry = EmbeddedSchemaRegistry.persistent(clientProperties(), topics.schemas());
        this.registryServer = SchemaRegistryServer.start(registry);
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
        return embedded(topics, settings, new SimpleMeterRegistry());
    }

    /** {@link #embedded(Topics, BrokerSettings)}, the parts' meters in {@code meters}. */
    public static LocalDeployment embedded(Topics topics, BrokerSettings settings, MeterRegistry meters) {
        EmbeddedKafka kafka = EmbeddedKafka.builder()
                .brokerProperty("group.min.session.timeout.ms", "1000")
                .start();
        return new LocalDeployment(kafka, kafka.bootstrapServers(), Map.of(), topics, settings, meters);
    }

    /** Uses an existing Kafka cluster; {@code clientProperties} carry its security settings. */
    public static LocalDeployment existing(
            String bootstrapServers, Map<String, Object> clientProperties, Topics topics, BrokerSettings settings) {
        return existing(bootstrapServers, clientProperties, topics, settings, new SimpleMeterRegistry());
    }

    /** {@link #existing(String, Map, Topics, BrokerSettings)}, the parts' meters in {@code meters}. */
    public static LocalDeployment existing(
            String bootstrapServers,
            Map<String, Object> clientProperties,
            Topics topics,
            BrokerSettings settings,
            MeterRegistry meters) {
        return new LocalDeployment(null, bootstrapServers, clientProperties, topics, settings, meters);
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
        int port = registryServer.port();
        registryServer.close();
        registry.close();
        registry = EmbeddedSchemaRegistry.persistent(clientProperties(), topics.schemas());
        registryServer = SchemaRegistryServer.start(registry, port);
    }

    /** The embedded registry's HTTP address, for tools that read the topics. */
    public String registryUrl() {
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

    /** Starts (or restarts) the broker; its state directory survives restarts. */
    public synchronized BrokerApp startBroker() throws InterruptedException {
        if (broker != null) {
            throw new IllegalStateException("the broker is running");
        }
        broker = startBrokerApp(workDir.resolve("broker-state"));
        brokerGeneration++;
        return broker;
    }

    /**
     * Starts one more instance of the broker (same application id, a state directory of its own):
     * Kafka Streams splits the partitions of {@code rounds} and so the jobs between the instances.
     * Closed with the deployment.
     */
    public synchronized BrokerApp startExtraBrokerInstance() throws InterruptedException {
        BrokerApp extra = startBrokerApp(workDir.resolve("broker-state-" + (extraBrokers.size() + 2)));
        extraBrokers.add(extra);
        return extra;
    }

    private BrokerApp startBrokerApp(Path stateDir) throws InterruptedException {
        Properties props = new Properties();
        props.putAll(clientProperties());
        props.put("application.id", topics.brokerApplicationId());
        if (kafka != null) {
            // Kafka Streams does not leave its group on close, so a restarted broker waits for the
            // old members' sessions to expire (45 s by default); the embedded cluster accepts short ones.
            props.put("main.consumer.session.timeout.ms", 6000);
            props.put("main.consumer.heartbeat.interval.ms", 1000);
        }
        BrokerApp app = new BrokerApp(props, brokerSettings, registryClient, stateDir, null, meters).start();
        app.awaitRunning(Duration.ofSeconds(60));
        return app;
    }

    public synchronized void stopBroker() {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    public synchronized BrokerApp broker() {
        return broker;
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
        WorkerAgent agent = new WorkerAgent(config, registryClient);
        agent.start();
        agents.put(config.workerId(), agent);
        return agent;
    }

    public synchronized WorkerAgent agent(String workerId) {
        return agents.get(workerId);
    }

    public synchronized List<WorkerAgent> agents() {
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
        WorkerAgent old = agents.get(workerId);
        if (old == null) {
            throw new IllegalArgumentException("no agent " + workerId);
        }
        if (old.isRunning()) {
            old.kill();
        }
        agents.remove(workerId);
        return startAgent(old.config());
    }

    /**
     * Waits until the broker sees every running agent as a live member owning task partitions: the
     * state in which rounds can be allocated to all of them.
     */
    public void awaitFleet(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> missing = new ArrayList<>();
            for (WorkerAgent a : agents()) {
                if (!a.isRunning()) {
                    continue;
                }
                var h = broker().membership().get(a.workerId());
                if (h == null
                        || h.getPartitions().isEmpty()
                        || a.ownedPartitions().isEmpty()) {
                    missing.add(a.workerId());
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("agents not yet members owning partitions: " + missing);
            }
            Thread.sleep(50);
        }
    }

    /** The common trainer settings for a job. */
    public TrainerConfig.Builder trainerConfig(String job, String policy, int batch, long rounds) {
        return TrainerConfig.builder()
                .bootstrapServers(bootstrapServers)
                .clientProperties(clientProperties.asMap())
                .topicPrefix(topics.prefix())
                .job(job)
                .policy(policy)
                .batch(batch)
                .maxRounds(rounds)
                .seed(5)
                .meterRegistry(meters);
    }

    public synchronized Trainer startTrainer(TrainerConfig config) {
        Trainer trainer = new Trainer(config, registryClient).start();
        trainers.add(trainer);
        return trainer;
    }

    public Trainer startTrainer(String job, String policy, int batch, long rounds, RoundListener listener) {
        return startTrainer(
                trainerConfig(job, policy, batch, rounds).listener(listener).build());
    }

    @Override
    public synchronized void close() {
        for (Trainer t : trainers) {
            t.close();
        }
        for (WorkerAgent a : agents.values()) {
            if (a.isRunning()) {
                a.close(Duration.ofSeconds(5));
            }
        }
        extraBrokers.forEach(BrokerApp::close);
        stopBroker();
        registryServer.close();
        registry.close();
        if (kafka != null) {
            kafka.close();
        }
        deleteQuietly(workDir);
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
