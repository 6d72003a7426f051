package io.ata.cli;

import io.ata.local.kafka.EmbeddedKafka;
import io.ata.local.kafka.KafkaLogging;
import io.ata.local.kafka.TopicAdmin;
import io.ata.local.kafka.TopicConfigOverrides;
import io.ata.local.kafka.TopicSpec;
import io.ata.schemas.Topics;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata kafka}: runs a Kafka broker (KRaft, broker and controller in one) inside this JVM on
 * 127.0.0.1 until Ctrl-C, for trying ATA on one machine without installing Kafka. Prints
 * {@code bootstrap.servers=127.0.0.1:PORT} on stdout (and nothing else there); what it does goes
 * to stderr. Stops when interrupted, too, which is how code and tests running it in a thread end it.
 */
@Command(
        name = "kafka",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        resourceBundle = "io.ata.cli.KafkaCommand", // the help of the partition options: see the partitions field
        description = {
            "Run a single-node Kafka broker (KRaft) in this process until Ctrl-C.",
            "Prints bootstrap.servers=127.0.0.1:PORT on stdout for the clients."
        })
public final class KafkaCommand extends GuardedCommand {

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "9092",
            description = "Port for clients on 127.0.0.1; 0 for any free port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description = "Keep Kafka's data in DIR (created if missing), so topics and records survive a restart. "
                    + "Default: a temporary directory deleted on exit.")
    Path dataDir;

    @Option(
            names = "--topics",
            description = "Create the project's topics (those missing): PREFIXworkers, PREFIXrounds, PREFIXtasks, "
                    + "PREFIXtimings, PREFIXgradients, PREFIXmodel, PREFIXdead-letters, PREFIXmembership, "
                    + "PREFIXoptimizer, PREFIXevaluations, each with its retention (see --topic-config).")
    boolean topics;

    @Option(
            names = "--topic-prefix",
            paramLabel = "PREFIX",
            defaultValue = Topics.DEFAULT_PREFIX,
            description = "Prefix of the topic names for --topics (default: ${DEFAULT-VALUE}).")
    String topicPrefix;

    /** Its help speaks of --topics: see KafkaCommand.properties. */
    @Mixin
    TopicPartitionsOptions partitions;

    /** --verbose, as on every command (its --log-level is Kafka's own: this command runs only Kafka). */
    @Mixin
    VerboseOption verbose;

    @Option(
            names = "--broker-config",
            paramLabel = "KEY=VALUE",
            description = "A further Kafka broker setting, e.g. --broker-config log.retention.ms=3600000; repeatable.")
    Map<String, String> brokerConfig = new LinkedHashMap<>();

    @Option(
            names = {"--log-level", "--kafka-log-level"},
            paramLabel = "LEVEL",
            defaultValue = KafkaLogging.DEFAULT_LEVEL,
            description = "Level of Kafka's own log messages on stderr: trace, debug, info, warn, error, off "
                    + "(default: ${DEFAULT-VALUE}).")
    String kafkaLogLevel;

    @Override
    int execute() {
        List<TopicSpec> projectTopics = checkOptions();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        EmbeddedKafka.Builder builder =
                EmbeddedKafka.builder().port(port).logLevel(kafkaLogLevel).brokerProperties(brokerConfig);
        if (dataDir != null) {
            builder.dataDir(dataDir);
        }
        EmbeddedKafka kafka = builder.build();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    kafka.close();
                    stopped.countDown();
                },
                "ata-kafka-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean interrupted = false;
        try {
            kafka.start();
            List<String> topicLines = topics ? createTopics(kafka, projectTopics, partitions.overrides()) : List.of();
            err.printf(
                    Locale.ROOT,
                    "Kafka broker (KRaft, cluster id %s) started in %.1f s on %s%n",
                    kafka.clusterId(),
                    kafka.lastStartTime().toMillis() / 1000.0,
                    kafka.bootstrapServers());
            err.println("data: " + kafka.logDir() + (kafka.isTemporary() ? " (deleted on exit)" : " (kept)"));
            topicLines.forEach(err::println);
            err.println("Press Ctrl-C to stop.");
            err.flush();
            out.println("bootstrap.servers=" + kafka.bootstrapServers());
            out.flush();
            stopped.await();
        } catch (InterruptedException e) {
            interrupted = true; // asked to stop by interrupting this thread
        } finally {
            closeUnlessShuttingDown(kafka, hook, err);
        }
        if (interrupted) {
            err.println("Kafka broker stopped.");
            err.flush();
            Thread.currentThread().interrupt(); // keep the interrupt for the caller
        }
        return 0;
    }

    /** The topics to create with --topics, as asked. */
    private List<TopicSpec> checkOptions() {
        if (port < 0 || port > 65535) {
            throw usageError("--port must be between 0 and 65535, not " + port);
        }
        if (partitions.tasks < 1) {
            throw usageError("--task-partitions must be at least 1, not " + partitions.tasks);
        }
        if (partitions.rounds < 1) {
            throw usageError("--rounds-partitions must be at least 1, not " + partitions.rounds);
        }
        try {
            KafkaLogging.setLevel(kafkaLogLevel);
            return partitions.overrides().specs(new Topics(topicPrefix, partitions.tasks, partitions.rounds));
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
    }

    /** Creates the missing topics; one line per topic to tell the user. */
    private static List<String> createTopics(
            EmbeddedKafka kafka, List<TopicSpec> projectTopics, TopicConfigOverrides overrides) {
        List<String> created;
        try (Admin admin = kafka.admin()) {
            created = TopicAdmin.createTopics(admin, projectTopics);
        }
        List<String> lines = new ArrayList<>();
        for (TopicSpec t : projectTopics) {
            lines.add(String.format(
                    Locale.ROOT,
                    "topic %s: %d partition%s, %s%s",
                    t.name(),
                    t.partitions(),
                    t.partitions() == 1 ? "" : "s",
                    t.retention(),
                    created.contains(t.name())
                            ? " (created)"
                            : overrides.isEmpty()
                                    ? " (existed)"
                                    : " (existed: its configs are left as they are, --topic-config not applied)"));
        }
        return lines;
    }

    /** Closes the broker unless the JVM is shutting down (then the hook does), and removes the hook. */
    private static void closeUnlessShuttingDown(EmbeddedKafka kafka, Thread hook, PrintWriter err) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return; // the hook closes the broker
        }
        try {
            kafka.close();
        } catch (RuntimeException e) {
            err.println("ata kafka: error while stopping the broker: " + e);
            err.flush();
        }
    }
}
