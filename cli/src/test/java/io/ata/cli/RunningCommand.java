package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import picocli.CommandLine;

/**
 * One {@code ata} command running as the user runs it, in a thread of its own, its stdout and
 * stderr kept; interrupting the thread stops it, as Ctrl-C would. For end-to-end tests that run
 * the live parts (broker, trainer, workers) side by side.
 */
public final class RunningCommand {
    private static final Duration PATIENCE = Duration.ofMinutes(2);
    /** The one line {@code ata kafka} prints on stdout; group 1 is the bootstrap servers. */
    public static final Pattern KAFKA_BOOTSTRAP_LINE =
            Pattern.compile("^bootstrap\\.servers=(\\S+)$", Pattern.MULTILINE);
    /** The line {@code ata broker} with an embedded Schema Registry prints; group 1 is its URL. */
    public static final Pattern REGISTRY_URL_LINE = Pattern.compile("schema\\.registry\\.url=(\\S+)");

    public final StringWriter out = new StringWriter();
    public final StringWriter err = new StringWriter();
    private final Thread thread;
    private final String name;
    private volatile int exitCode = -1;

    public RunningCommand(String... args) {
        this.name = String.join(" ", args);
        CommandLine command = AtaCommand.commandLine();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        thread = new Thread(() -> exitCode = command.execute(args), "ata " + args[0]);
        thread.start();
    }

    /**
     * {@code command} run against {@code local}: its Kafka, its Schema Registry and the topics of
     * {@code prefix}, then {@code options}.
     */
    public static RunningCommand against(LocalDeployment local, String prefix, String command, String... options) {
        List<String> args = new ArrayList<>();
        args.add(command);
        args.addAll(clusterOptions(local, prefix));
        args.addAll(List.of(options));
        return new RunningCommand(args.toArray(String[]::new));
    }

    /** The options that point a command at {@code local}'s Kafka and Schema Registry and the topics of {@code prefix}. */
    public static List<String> clusterOptions(LocalDeployment local, String prefix) {
        return List.of(
                "--bootstrap-servers",
                local.bootstrapServers(),
                "--schema-registry-url",
                local.registryUrl(),
                "--topic-prefix",
                prefix);
    }

    /** The first group of the first line of {@code stream} that matches {@code pattern}, waiting for it. */
    public String awaitLine(StringWriter stream, Pattern pattern) {
        try {
            Awaitility.await()
                    .atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> pattern.matcher(stream.toString()).find() || !thread.isAlive());
        } catch (ConditionTimeoutException e) {
            // the assertion below says what was printed instead
        }
        Matcher m = pattern.matcher(stream.toString());
        assertTrue(m.find(), "ata " + name + " printed no " + pattern + "\n" + transcript());
        return m.group(1);
    }

    public boolean isRunning() {
        return thread.isAlive();
    }

    /** Its exit code once it has ended, waiting up to {@code patience}; -1 if it is still running. */
    public int awaitExit(Duration patience) throws InterruptedException {
        thread.join(patience.toMillis());
        return exitCode;
    }

    /** Both streams, for an assertion's message. */
    public String transcript() {
        return "--- ata " + name + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }

    public void stop() throws InterruptedException {
        thread.interrupt();
        thread.join(Duration.ofSeconds(60).toMillis());
    }
}
