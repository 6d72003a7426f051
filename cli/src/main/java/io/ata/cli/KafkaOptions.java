package io.ata.cli;

import io.ata.local.RunFailure;
import io.ata.platform.kafka.ClientProperties;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.schemas.serde.SerdeConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * How a command reaches a Kafka cluster and its Schema Registry, spelled as Kafka's own tools do:
 * {@code --bootstrap-servers} (or {@code --bootstrap-server}, or {@code bootstrap.servers} in the
 * file), {@code --command-config FILE} (client properties: security settings),
 * {@code --topic-prefix} and {@code --schema-registry-url}. A picocli mixin of every command that
 * talks to a cluster. {@code ata demo} mixes it in too, but there every option is optional (an
 * embedded broker and registry by default), so its help words them differently: its resource
 * bundle, DemoCommand.properties, overrides these descriptions. A command that cannot run without
 * a cluster mixes in {@link #clusterRequired()}, whose usage help shows the servers as required.
 */
final class KafkaOptions {
    /** How long a command waits for the cluster's first answer before it says it cannot reach it. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(20);

    /** The option's name as Kafka's tools with several servers spell it. */
    static final String BOOTSTRAP_SERVERS = "--bootstrap-servers";

    CommandSpec command;

    /** Whether the command cannot run without a cluster: then its usage help says the servers are required. */
    private final boolean clusterRequired;

    /** The options of a command that runs on a cluster only when given one ({@code ata demo}, replay, benches). */
    KafkaOptions() {
        this(false);
    }

    private KafkaOptions(boolean clusterRequired) {
        this.clusterRequired = clusterRequired;
    }

    /**
     * The options of a command that cannot run without a cluster (broker, trainer, worker,
     * export-timings): the value of {@link ClusterCommand}'s {@code @Mixin} field, so picocli mixes
     * in this instance.
     */
    static KafkaOptions clusterRequired() {
        return new KafkaOptions(true);
    }

    /** Given the command that mixes these options in; a command needing a cluster gets the help saying so. */
    @Spec(Spec.Target.MIXEE)
    void mixee(CommandSpec mixee) {
        this.command = mixee;
        if (clusterRequired) {
            mixee.usageMessage().helpFactory(ClusterRequiredHelp::new);
        }
    }

    @Option(
            names = {BOOTSTRAP_SERVERS, "--bootstrap-server"},
            paramLabel = "HOST:PORT[,...]",
            description = {
                "The Kafka cluster (bootstrap.servers). Required, unless --command-config sets "
                        + "bootstrap.servers; --bootstrap-server, Kafka tools' spelling, is the same option."
            })
    String bootstrapServers;

    @Option(
            names = "--command-config",
            paramLabel = "FILE",
            description = {
                "Kafka client properties for every client (security.protocol, sasl.*, ssl.*, ...), "
                        + "as for Kafka's own tools.",
                "May also hold schema.registry.url and basic.auth.user.info for the Schema Registry."
            })
    Path commandConfig;

    @Option(
            names = "--topic-prefix",
            paramLabel = "PREFIX",
            description = "Prefix of the topic names (default: " + Topics.DEFAULT_PREFIX + ").")
    String topicPrefix;

    @Option(
            names = "--schema-registry-url",
            paramLabel = "URL",
            description = {
                "The Schema Registry every part shares, http(s)://host:port (or schema.registry.url in "
                        + "--command-config).",
                "All parts must use the same registry: 'ata broker' serves an embedded one when it is given none "
                        + "and prints its URL; pass that URL to the trainers, workers and exports."
            })
    String schemaRegistryUrl;

    private ClientProperties fileProperties;

    /** Whether any of these options was given (for commands where they apply only with another option). */
    boolean anyGiven() {
        return bootstrapServers != null || commandConfig != null || topicPrefix != null || schemaRegistryUrl != null;
    }

    /**
     * Whether the command line names a cluster: {@code --bootstrap-servers}, or {@code --command-config},
     * whose {@code bootstrap.servers} then names it (for commands that run on an embedded broker without).
     */
    boolean clusterNamed() {
        return bootstrapServers != null || commandConfig != null;
    }

    ParameterException usageError(String message) {
        return new ParameterException(command.commandLine(), message);
    }

    /** The option's value, else bootstrap.servers of --command-config, as Kafka's own tools take it. */
    String bootstrapServers() {
        if (bootstrapServers != null && !bootstrapServers.isBlank()) {
            return bootstrapServers.strip();
        }
        Object fromFile = commandConfig == null
                ? null
                : fileProperties().asMap().get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        if (fromFile == null || fromFile.toString().isBlank()) {
            throw usageError("Missing required option: '--bootstrap-servers=HOST:PORT[,...]' "
                    + "(or bootstrap.servers in --command-config)");
        }
        return fromFile.toString().strip();
    }

    /** The topic prefix, checked as Kafka would check the names. */
    String prefix() {
        String prefix = topicPrefix == null ? Topics.DEFAULT_PREFIX : topicPrefix;
        try {
            new Topics(prefix);
        } catch (IllegalArgumentException e) {
            throw usageError("Invalid value for option '--topic-prefix': " + e.getMessage());
        }
        return prefix;
    }

    /** The topics with the chosen prefix (and the default partition counts). */
    Topics topics() {
        return new Topics(prefix());
    }

    /** The topics with the chosen prefix, {@code taskPartitions} task partitions and one rounds partition. */
    Topics topics(int taskPartitions) {
        return new Topics(prefix(), taskPartitions, Topics.DEFAULT_ROUNDS_PARTITIONS);
    }

    /** The properties of {@code --command-config} (none without it); read once. */
    private ClientProperties fileProperties() {
        if (fileProperties == null) {
            try {
                fileProperties = commandConfig == null ? ClientProperties.none() : ClientProperties.load(commandConfig);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read --command-config " + commandConfig, e);
            }
        }
        return fileProperties;
    }

    /**
     * The file's properties meant for Kafka's clients: all but the Schema Registry's, which Kafka's
     * clients would only warn about (see {@link ClientProperties#withoutRegistrySettings()}).
     */
    Map<String, Object> kafkaProperties() {
        return fileProperties().withoutRegistrySettings().asMap();
    }

    /** Client properties for this command's own Kafka clients: the file's Kafka properties and bootstrap.servers. */
    Map<String, Object> clientProperties() {
        return fileProperties().withoutRegistrySettings().forClient(bootstrapServers());
    }

    /** The registry URL from the option, else from the properties file. */
    Optional<String> registryUrl() {
        if (schemaRegistryUrl != null && !schemaRegistryUrl.isBlank()) {
            return Optional.of(schemaRegistryUrl.strip());
        }
        Object fromFile = fileProperties().asMap().get(SerdeConfig.SCHEMA_REGISTRY_URL);
        return fromFile == null || fromFile.toString().isBlank() ? Optional.empty() : Optional.of(fromFile.toString());
    }

    /** The shared registry, which this command cannot do without; checked to answer. */
    SchemaRegistryClient requireRegistry() {
        String url = registryUrl()
                .orElseThrow(
                        () -> usageError(
                                "Missing required option: '--schema-registry-url=URL' "
                                        + "(every part must use the broker's registry: 'ata broker' prints the URL of the one it serves)"));
        return registry(url);
    }

    /** A client of the registry at {@code url}, with the file's credentials; checked to answer. */
    SchemaRegistryClient registry(String url) {
        Map<String, Object> config = new LinkedHashMap<>(fileProperties().asMap());
        config.put(SerdeConfig.SCHEMA_REGISTRY_URL, url);
        SchemaRegistryClient client;
        try {
            client = SerdeConfig.registryClient(config);
        } catch (KafkaException e) {
            throw usageError("Invalid value for option '--schema-registry-url': " + e.getMessage());
        }
        try {
            client.latest(prefix() + "timings-value");
        } catch (SchemaNotFoundException e) {
            // answers: fine
        } catch (SchemaRegistryException e) {
            throw new RunFailure("cannot use the Schema Registry at " + url + ": " + e.getMessage(), e);
        }
        return client;
    }

    /**
     * Checks that the cluster answers and that the topics exist.
     *
     * @throws RunFailure naming the missing topics, or why the cluster cannot be reached
     */
    void requireTopics(Collection<String> names, String hint) {
        Set<String> existing = topicNames();
        List<String> missing = names.stream().filter(n -> !existing.contains(n)).toList();
        if (!missing.isEmpty()) {
            throw new RunFailure("topic" + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing)
                    + (missing.size() == 1 ? " does" : " do") + " not exist on " + bootstrapServers() + hint
                    + (secured() ? " (or this client's principal may not DESCRIBE them: see docs/security.md)" : ""));
        }
    }

    /** Whether the client authenticates (SASL or TLS), so that ACLs may hide topics from it. */
    private boolean secured() {
        Object protocol = clientProperties().get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
        return protocol != null
                && !"PLAINTEXT".equalsIgnoreCase(protocol.toString().strip());
    }

    /** The topics of the cluster; proves that it answers. */
    Set<String> topicNames() {
        BootstrapProbe.requireReachable(bootstrapServers()); // fast, quiet, and names the cause
        try (Admin admin = admin()) {
            return admin.listTopics().names().get(CONNECT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw unreachable(e.getCause());
        } catch (TimeoutException e) {
            throw unreachable(new KafkaException("no answer within " + CONNECT_TIMEOUT.toSeconds() + " s"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RunFailure("interrupted while contacting Kafka at " + bootstrapServers());
        } catch (KafkaException e) {
            throw unreachable(e);
        }
    }

    /** An admin client that gives up within {@link #CONNECT_TIMEOUT}. */
    Admin admin() {
        Properties p = new Properties();
        p.putAll(clientProperties());
        p.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CONNECT_TIMEOUT.toMillis());
        p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CONNECT_TIMEOUT.toMillis());
        return Admin.create(p);
    }

    private RunFailure unreachable(Throwable cause) {
        return new RunFailure("cannot reach Kafka at " + bootstrapServers() + ": " + cause.getMessage(), cause);
    }
}
