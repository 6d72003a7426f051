package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** Runs the {@code ata} command line in-process, as the tests' user would, capturing its output. */
record CliRun(int exitCode, String out, String err) {

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new AtaCommand());
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int code = commandLine.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /**
     * The help of {@code ata command}, which must exit with 0, its white space folded to single
     * spaces so that a phrase reads the same wherever the help wraps it.
     */
    static String helpText(String command) {
        CliRun help = of(command, "--help");
        assertEquals(0, help.exitCode(), help.transcript());
        return help.out().replaceAll("\\s+", " ");
    }

    /**
     * {@code ata} with the words of {@code words} (split at white space), then {@code more} as they
     * are (paths, which may hold anything).
     */
    static CliRun line(String words, String... more) {
        List<String> args = new ArrayList<>(List.of(words.trim().split("\\s+")));
        args.addAll(List.of(more));
        return of(args.toArray(String[]::new));
    }

    /**
     * {@code ata replay} of the log that {@code source} names (e.g. {@code --log FILE}), as a check
     * that it replays: {@code batch} tasks a round, {@code policies}, no charts, one thread, into
     * {@code out}.
     */
    static CliRun replay(List<String> source, int batch, String policies, Path out) {
        List<String> args = new ArrayList<>(List.of("replay"));
        args.addAll(source);
        args.addAll(List.of(
                "--batch",
                "" + batch,
                "--policies",
                policies,
                "--no-charts",
                "--threads",
                "1",
                "--out",
                out.toString()));
        return of(args.toArray(String[]::new));
    }

    /**
     * The subcommand object of {@code ata} after parsing {@code words}, then {@code more}, as
     * {@code ata} parses them; nothing is run. For tests of what options resolve to.
     */
    static <T> T parsed(Class<T> command, List<String> words, String... more) {
        List<String> args = new ArrayList<>(words);
        args.addAll(List.of(more));
        Object user = AtaCommand.commandLine()
                .parseArgs(args.toArray(String[]::new))
                .subcommand()
                .commandSpec()
                .userObject();
        return command.cast(user);
    }

    /**
     * The options of {@code ata worker} as agent {@code i} of a test fleet ({@code agent-i}):
     * worker {@code i} of the linear time model, 20 times faster; then {@code more}.
     */
    static String[] emulatedAgent(int i, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "--worker-id",
                "agent-" + i,
                "--time-model",
                "linear",
                "--worker-index",
                "" + i,
                "--time-scale",
                "0.05"));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /**
     * The options of {@code ata broker} serving its HTTP API and an embedded Schema Registry on free
     * ports, its state in {@code stateDir}; then {@code more}.
     */
    static String[] brokerOnFreePorts(Path stateDir, String... more) {
        List<String> args = new ArrayList<>(
                List.of("--http-port", "0", "--registry-port", "0", "--state-dir", stateDir.toString()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    /** For assertion messages: everything the command printed. */
    String transcript() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
