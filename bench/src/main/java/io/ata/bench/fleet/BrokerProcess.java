package io.ata.bench.fleet;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.ata.broker.BrokerApp;
import io.ata.broker.BrokerSettings;
import io.ata.broker.StoreRestores;
import io.ata.schemas.Topics;
import io.ata.schemas.serde.SerdeConfig;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The broker in a JVM of its own, so that a bench can {@code kill -9} it ({@link FleetRestore}):
 * {@link #start} launches this class's {@link #main} with the caller's class path, which runs one
 * broker instance until it is killed and prints {@value #RUNNING} once it is RUNNING (its state
 * restored).
 */
public final class BrokerProcess {

    /** The line the child prints once the broker is RUNNING. */
    static final String RUNNING = "broker RUNNING";
    /**
     * Before {@link #RUNNING}, the child prints one line per store it restored: this, then the
     * store's name, partitions, records, and its first start and last end in seconds since the JVM
     * started, e.g. {@code broker restored jobs 16 1000 1.204 3.377}.
     */
    static final String RESTORED = "broker restored";
    /**
     * Before {@link #RUNNING}, the child prints this and whether its JVM maps a class-data sharing
     * archive ({@code true} or {@code false}; the JDK's own where it was given none): under
     * {@code -Xshare:auto} one it cannot map is dropped without a word.
     */
    static final String SHARES_CLASSES = "broker shares classes";
    /** The instances' session timeout: a restarted or dead instance is not waited for longer. */
    static final int SESSION_TIMEOUT_MS = 6_000;
    /** The instances' transaction timeout when they keep standby replicas (a failover). */
    static final int FAILOVER_TRANSACTION_TIMEOUT_MS = 5_000;

    private BrokerProcess() {}

    /**
     * Starts a broker process of the deployment at {@code bootstrapServers} with topics
     * {@code topicPrefix}, its state in {@code stateDir}, its schemas from {@code registryUrl},
     * keeping {@code standbyReplicas} warm copies of each task's state on the other instances; its
     * JVM takes {@code jvmOptions} (e.g. {@link ClassDataArchive}'s) and its output goes to {@code log}.
     */
    static Process start(
            String bootstrapServers,
            String topicPrefix,
            Path stateDir,
            String registryUrl,
            Path log,
            int standbyReplicas,
            List<String> jvmOptions)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(javaCommand());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classPath());
        command.add(BrokerProcess.class.getName());
        command.addAll(List.of(
                bootstrapServers, topicPrefix, stateDir.toString(), registryUrl, Integer.toString(standbyReplicas)));
        File out = log.toFile();
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out))
                .start();
    }

    /** The java command of this JVM, which the broker process runs on. */
    static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** This JVM's class path, which the broker process runs on. */
    static String classPath() {
        return System.getProperty("java.class.path");
    }

    /**
     * {@code bootstrap-servers topic-prefix state-dir registry-url [standby-replicas]}: runs the broker
     * until killed.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 5) {
            System.err.println(
                    "usage: BrokerProcess BOOTSTRAP_SERVERS TOPIC_PREFIX STATE_DIR REGISTRY_URL [STANDBY_REPLICAS]");
            System.exit(2);
        }
        Topics topics = new Topics(args[1]);
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        props.put("application.id", topics.brokerApplicationId());
        // as the embedded deployment's broker: a restarted instance is not held up by its old session
        props.put("main.consumer.session.timeout.ms", SESSION_TIMEOUT_MS);
        props.put("main.consumer.heartbeat.interval.ms", 1000);
        if (args.length == 5 && Integer.parseInt(args[4]) > 0) {
            props.put("num.standby.replicas", Integer.parseInt(args[4]));
            // a failover waits for the dead instance's open transaction to be aborted, which a shorter
            // timeout than Streams' 10 s brings forward (its transactions span one commit interval, 1 s)
            props.put("producer.transaction.timeout.ms", FAILOVER_TRANSACTION_TIMEOUT_MS);
        }
        BrokerApp app = new BrokerApp(
                props,
                BrokerSettings.defaults().withTopicPrefix(topics.prefix()),
                SerdeConfig.registryClient(Map.of(SerdeConfig.SCHEMA_REGISTRY_URL, args[3])),
                Path.of(args[2]),
                null);
        app.start();
        app.awaitRunning(Duration.ofMinutes(10));
        long jvmStartNanos = System.nanoTime()
                - (System.currentTimeMillis()
                                - ManagementFactory.getRuntimeMXBean().getStartTime())
                        * 1_000_000;
        // one write, so that no line of the broker's log (on the same file) cuts into these
        StringBuilder lines = new StringBuilder();
        for (StoreRestores.Restore r : app.restores()) {
            lines.append(String.format(
                    Locale.ROOT,
                    "%s %s %d %d %.3f %.3f%n",
                    RESTORED,
                    r.store(),
                    r.partitions(),
                    r.records(),
                    (r.firstStartNanos() - jvmStartNanos) / 1e9,
                    (r.lastEndNanos() - jvmStartNanos) / 1e9));
        }
        lines.append(SHARES_CLASSES)
                .append(' ')
                .append(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                        .getVMOption("UseSharedSpaces")
                        .getValue())
                .append(System.lineSeparator());
        lines.append(RUNNING).append(System.lineSeparator());
        System.out.print(lines);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE); // until killed
    }
}
