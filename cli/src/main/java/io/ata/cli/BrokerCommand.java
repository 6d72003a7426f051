package io.ata.cli;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.broker.BrokerApp;
import io.ata.broker.BrokerHttpServer;
import io.ata.broker.BrokerSettings;
import io.ata.local.RunFailure;
import io.ata.local.StopSignal;
import io.ata.local.kafka.TopicAdmin;
import io.ata.local.kafka.TopicSpec;
import io.ata.platform.ops.ProcessMetrics;
import io.ata.platform.registry.SchemaRegistryServer;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.streams.KafkaStreams;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata broker}: the allocation broker (a Kafka Streams application, exactly once) and its
 * HTTP queries, until Ctrl-C. Several instances with the same application id share the jobs; each
 * advertises its HTTP address to the others, so that any instance answers for every job.
 */
@Command(
        name = "broker",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run the ATA broker on a Kafka cluster until Ctrl-C.",
            "It allocates every job's rounds to the live workers and learns their task times, and serves its "
                    + "statistics over HTTP (GET /jobs, /jobs/JOB/stats, /jobs/JOB/allocation, /workers, /metrics).",
            "Several instances with the same --application-id share the jobs (one per partition of the rounds "
                    + "topic at most); any instance answers for every job, asking the one that hosts it.",
            "Schema Registry: all parts (broker, trainers, workers, exports) must share one. Without "
                    + "--schema-registry-url the broker starts an embedded one in this process, serves it over "
                    + "HTTP on 127.0.0.1 (--registry-port) and prints its URL: give that URL to the other parts. "
                    + "It keeps the schemas in the compacted topic PREFIXschemas, so a restarted broker serves the "
                    + "same ids; only one broker with an embedded registry may run per topic prefix."
        })
public final class BrokerCommand extends ClusterCommand {

    @Option(
            names = "--application-id",
            paramLabel = "ID",
            description = "Kafka Streams application id; instances with the same id share the jobs, instances with "
                    + "different ids each allocate every job (default: <topic-prefix>broker, e.g. ata.broker, the "
                    + "id of the broker 'ata demo' starts).")
    String applicationIdOption;

    @Option(
            names = "--state-dir",
            paramLabel = "DIR",
            description = "Directory of the local state stores (default: ~/.ata/broker-state/APPLICATION-ID).")
    Path stateDir;

    @Option(
            names = "--http-port",
            paramLabel = "PORT",
            defaultValue = "8088",
            description = "Port of the HTTP queries; 0 for any free port (default: ${DEFAULT-VALUE}).")
    int httpPort;

    @Option(
            names = "--http-host",
            paramLabel = "HOST",
            defaultValue = "127.0.0.1",
            description = "Address the HTTP queries listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for all).")
    String httpHost;

    @Option(
            names = "--http-advertised-host",
            paramLabel = "HOST",
            description = "Host the other broker instances reach this one's HTTP queries at (default: --http-host, "
                    + "or this machine's name if that is 0.0.0.0).")
    String httpAdvertisedHost;

    @Option(
            names = "--registry-port",
            paramLabel = "PORT",
            defaultValue = "8081",
            description = "Port of the embedded Schema Registry on 127.0.0.1 when no --schema-registry-url is given; "
                    + "0 for any free port (default: ${DEFAULT-VALUE}).")
    int registryPort;

    @Option(
            names = "--policy",
            paramLabel = "NAME",
            defaultValue = "ata-auto",
            completionCandidates = OptionValues.PolicyNames.class,
            description =
                    "Policy of a job whose trainer names none (default: ${DEFAULT-VALUE}). Known: ${COMPLETION-CANDIDATES}.")
    String policy;

    @Option(
            names = "--constants",
            paramLabel = "paper|experiments",
            defaultValue = "paper",
            converter = OptionValues.Convention.class,
            description = "How ata and ata-empirical set their confidence constants (default: paper).")
    ConstantConvention constants;

    @Option(
            names = "--alpha",
            paramLabel = "A",
            description =
                    "ATA's sub-exponential constant alpha (ms) under --constants paper; jobs with policy ata need it.")
    Double alpha;

    @Option(
            names = "--eta",
            paramLabel = "E",
            description = "ATA-Empirical's relative constant eta under --constants paper; jobs with policy "
                    + "ata-empirical need it.")
    Double eta;

    @Option(
            names = "--liveness-timeout",
            paramLabel = "TIME",
            defaultValue = "10s",
            converter = OptionValues.TimeSpan.class,
            description =
                    "A worker whose last heartbeat is older gets no tasks, e.g. 10s, 500ms (default: ${DEFAULT-VALUE}).")
    Duration livenessTimeout;

    @Option(
            names = "--job-retention",
            paramLabel = "TIME",
            defaultValue = "24h",
            converter = OptionValues.TimeSpan.class,
            description = "How long a job without a round event is kept: then its state is deleted "
                    + "from the jobs store (a finished or abandoned job); an OPENED after that starts it afresh; at "
                    + "least 10m (default: ${DEFAULT-VALUE}).")
    Duration jobRetention;

    @Option(
            names = "--known-means",
            paramLabel = "FILE",
            description =
                    "Properties file worker-id=mean task time in ms, for the oracle policies fta and proportional.")
    Path knownMeans;

    @Option(
            names = "--pipelined-allocation",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Plan and send round k+1's tasks when round k opens, from statistics one round older: "
                    + "agents hold them until round k closes, and the broker's hop leaves the round's critical "
                    + "path (default: on; --no-pipelined-allocation plans each round when it opens).")
    boolean pipelinedAllocation;

    @Option(
            names = "--create-topics",
            description = "Create the topics that are missing (else the broker stops if one is missing).")
    boolean createTopics;

    @Mixin
    TopicPartitionsOptions partitions;

    @Mixin
    LogOptions logging;

    @Override
    int execute() {
        BrokerSettings settings = checkOptions();
        logging.apply();
        PrintWriter err = spec.commandLine().getErr();
        Topics topics = kafka.topics(partitions.tasks).withRoundsPartitions(partitions.rounds);
        prepareTopics(topics, err);

        try (StopSignal stop = StopSignal.install("broker")) {
            return serve(stop, topics, settings, err);
        }
    }

    /** Runs until stopped; everything it starts is closed before it returns (and before the JVM may exit). */
    private int serve(StopSignal stop, Topics topics, BrokerSettings settings, PrintWriter err) {
        EmbeddedSchemaRegistry embedded = null;
        SchemaRegistryServer embeddedServer = null;
        BrokerApp app = null;
        BrokerHttpServer http = null;
        boolean failed = true;
        try {
            SchemaRegistryClient registry;
            String registryUrl;
            if (kafka.registryUrl().isPresent()) {
                registryUrl = kafka.registryUrl().get();
                registry = kafka.registry(registryUrl);
            } else {
                // kept in the schemas topic: a restarted broker serves the ids its topics' records carry
                embedded = EmbeddedSchemaRegistry.persistent(kafka.clientProperties(), topics.schemas());
                embeddedServer = SchemaRegistryServer.start(embedded, registryPort);
                registry = embedded;
                registryUrl = embeddedServer.url();
            }
            Properties props = new Properties();
            props.putAll(kafka.clientProperties());
            String applicationId = applicationId();
            props.put("application.id", applicationId);
            Path state = stateDir != null
                    ? stateDir
                    : Path.of(System.getProperty("user.home"), ".ata", "broker-state", applicationId);
            // Bind first: the actual address (port 0 too) is what the instance advertises to the others.
            http = new BrokerHttpServer(httpHost, httpPort, httpAdvertisedHost);
            PrometheusMeterRegistry meters = ProcessMetrics.newRegistry();
            app = new BrokerApp(props, settings, registry, state, http.endpoint(), meters).start();
            http.start(
                    app,
                    ProcessMetrics.exposition(
                            meters)); // answers 503 until the app runs, rather than leaving other instances waiting
            if (!awaitRunning(app, stop)) {
                failed = false;
                return 0;
            }
            err.printf(
                    Locale.ROOT,
                    "ata broker %s running on %s, topics %s*, default policy %s%n",
                    applicationId,
                    kafka.bootstrapServers(),
                    topics.prefix(),
                    settings.defaultPolicy());
            err.println("state: " + state.toAbsolutePath().normalize());
            err.println("Schema Registry: " + registryUrl
                    + (embedded != null
                            ? " (embedded, kept in topic " + topics.schemas() + ": pass --schema-registry-url "
                                    + registryUrl
                                    + " to the other parts)"
                            : ""));
            err.println("HTTP queries: " + http.url()
                    + "/jobs, /jobs/JOB/stats, /jobs/JOB/allocation, /workers, /metrics, /health, /ready");
            err.println("Press Ctrl-C to stop.");
            err.flush();
            PrintWriter out = spec.commandLine().getOut();
            out.println("schema.registry.url=" + registryUrl);
            out.println("http=" + http.url());
            out.flush();
            while (!stop.await(Duration.ofMillis(500))) {
                KafkaStreams.State s = app.state();
                if (s == KafkaStreams.State.ERROR
                        || s == KafkaStreams.State.PENDING_ERROR
                        || s == KafkaStreams.State.NOT_RUNNING) {
                    throw new RunFailure("the broker stopped (Kafka Streams state " + s + "); run with --log-level "
                            + "info to see why");
                }
            }
            err.println("ata broker: stopping...");
            err.flush();
            failed = false;
            return 0;
        } finally {
            if (http != null) {
                http.close();
            }
            if (app != null) {
                app.close();
            }
            if (embeddedServer != null) {
                embeddedServer.close();
            }
            if (embedded != null) {
                embedded.close();
            }
            if (!failed) {
                err.println("ata broker: stopped.");
                err.flush();
            }
        }
    }

    /**
     * The Kafka Streams application id: {@code --application-id}, else the topic prefix's
     * ({@link Topics#brokerApplicationId()}, {@code <prefix>broker}), the one rule the embedded
     * deployment follows too.
     */
    String applicationId() {
        if (applicationIdOption == null) {
            return kafka.topics().brokerApplicationId();
        }
        requireNotEmpty("--application-id", applicationIdOption);
        return applicationIdOption;
    }

    private BrokerSettings checkOptions() {
        applicationId(); // a usage error, before anything starts
        kafka.bootstrapServers();
        kafka.prefix();
        requirePort("--http-port", httpPort);
        requirePort("--registry-port", registryPort);
        if (partitions.tasks < 1) {
            throw usageError(
                    "Invalid value for option '--task-partitions': must be at least 1, was " + partitions.tasks);
        }
        if (partitions.rounds < 1) {
            throw usageError(
                    "Invalid value for option '--rounds-partitions': must be at least 1, was " + partitions.rounds);
        }
        try {
            partitions.overrides().specs(kafka.topics());
        } catch (IllegalArgumentException e) {
            throw usageError("Invalid value for option '--topic-config': " + e.getMessage());
        }
        List<String> names;
        try {
            names = PolicyFactory.parseList(policy);
        } catch (IllegalArgumentException e) {
            throw usageError("Invalid value for option '--policy': " + e.getMessage());
        }
        if (names.size() != 1) {
            throw usageError("Invalid value for option '--policy': give one policy, not " + names.size());
        }
        requirePositiveIfGiven("--alpha", alpha);
        requirePositiveIfGiven("--eta", eta);
        if (constants == ConstantConvention.EXPERIMENTS && (alpha != null || eta != null)) {
            throw usageError("--alpha and --eta apply to --constants paper only");
        }
        Duration check = livenessTimeout.dividedBy(2).compareTo(Duration.ofSeconds(1)) < 0
                ? livenessTimeout.dividedBy(2)
                : Duration.ofSeconds(1);
        if (check.isZero()) {
            check = Duration.ofMillis(1);
        }
        if (jobRetention.compareTo(BrokerSettings.MIN_JOB_RETENTION) < 0) {
            throw usageError("Invalid value for option '--job-retention': at least 10m, was " + jobRetention);
        }
        return BrokerSettings.builder()
                .topicPrefix(kafka.prefix())
                .defaultPolicy(names.get(0))
                .knownMeans(readKnownMeans())
                .convention(constants)
                .alpha(alpha == null ? Double.NaN : alpha)
                .eta(eta == null ? Double.NaN : eta)
                .liveness(livenessTimeout, check)
                .pipelinedAllocation(pipelinedAllocation)
                .jobRetention(jobRetention)
                .build();
    }

    /** {@code worker=ms} per line; every value a positive number. */
    private Map<String, Double> readKnownMeans() {
        Map<String, Double> means = new LinkedHashMap<>();
        if (knownMeans == null) {
            return means;
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(knownMeans, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read --known-means " + knownMeans, e);
        }
        for (String worker : new TreeSet<>(p.stringPropertyNames())) {
            String text = p.getProperty(worker).strip();
            double mean;
            try {
                mean = Double.parseDouble(text);
            } catch (NumberFormatException e) {
                mean = Double.NaN;
            }
            if (!(mean > 0) || Double.isInfinite(mean)) {
                throw new IllegalArgumentException("known means " + knownMeans + ": worker '" + worker + "' has mean '"
                        + text + "'; expected a number of milliseconds > 0");
            }
            means.put(worker, mean);
        }
        return means;
    }

    /**
     * The topics the broker itself reads or writes: a locked-down broker may describe only these
     * (see {@code RequiredAcls}), so it checks for these only.
     */
    private static List<String> brokerTopics(Topics topics) {
        return List.of(
                topics.workers().name(),
                topics.rounds().name(),
                topics.membership().name(),
                topics.tasks().name(),
                topics.allocations().name(),
                topics.deadLetters().name());
    }

    /** Creates the missing topics if asked to, else checks that the broker's own exist. */
    private void prepareTopics(Topics topics, PrintWriter err) {
        if (!createTopics) {
            kafka.requireTopics(brokerTopics(topics), "; create them with --create-topics (or 'ata kafka --topics')");
            requireRegistryPortFree();
            return;
        }
        List<TopicSpec> specs = partitions.overrides().specs(topics);
        kafka.topicNames(); // fails clearly if the cluster cannot be reached
        // before any topic is created: a port taken would stop the broker after it changed the cluster
        requireRegistryPortFree();
        List<String> created;
        try (Admin admin = kafka.admin()) {
            created = TopicAdmin.createTopics(admin, specs);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new RunFailure("cannot create the topics on " + kafka.bootstrapServers() + ": " + e.getMessage(), e);
        }
        for (TopicSpec t : specs) {
            err.printf(
                    Locale.ROOT,
                    "topic %s: %s%n",
                    t.name(),
                    created.contains(t.name())
                            ? "created, " + t.partitions() + " partition" + (t.partitions() == 1 ? "" : "s") + ", "
                                    + t.retention()
                            : "exists" + (partitions.topicConfigs.isEmpty() ? "" : " (--topic-config not applied)"));
        }
        err.flush();
    }

    /** Waits until the streams application runs; false if stopped meanwhile. */
    private static boolean awaitRunning(BrokerApp app, StopSignal stop) {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (app.state() != KafkaStreams.State.RUNNING) {
            KafkaStreams.State s = app.state();
            if (s == KafkaStreams.State.ERROR
                    || s == KafkaStreams.State.PENDING_ERROR
                    || s == KafkaStreams.State.NOT_RUNNING) {
                throw new RunFailure("the broker stopped while starting (Kafka Streams state " + s
                        + "); run with --log-level info to see why");
            }
            if (System.nanoTime() > deadline) {
                throw new RunFailure("the broker did not start within 2 minutes (state " + s + ")");
            }
            if (stop.await(Duration.ofMillis(50))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Fails, naming --registry-port, where the embedded registry is to serve and its port cannot be
     * bound now (0, any free port, always can); the registry binds it again when it starts.
     */
    private void requireRegistryPortFree() {
        if (kafka.registryUrl().isPresent() || registryPort == 0) {
            return;
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress("127.0.0.1", registryPort));
        } catch (IOException e) {
            throw new RunFailure("cannot serve the embedded Schema Registry on 127.0.0.1:" + registryPort
                    + " (--registry-port): " + e.getMessage() + "; choose another port with --registry-port"
                    + " (0 for any free one), or give a running registry with --schema-registry-url");
        }
    }
}
