package io.ata.cli;

import io.ata.lab.export.TimingExportException;
import io.ata.lab.sim.DurationSource;
import io.ata.local.RunFailure;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How failures reach the user. A mistake in the input (a bad option value, an unknown policy, a
 * malformed scenario or log, a missing file) is one line on stderr naming the problem, never a
 * stack trace: exit code 2 for usage errors, 1 for errors while running. The stack trace is
 * printed only with {@code --verbose} or when the environment variable {@code ATA_DEBUG} is set,
 * which is what a bug report needs.
 */
final class ErrorReporter implements IExecutionExceptionHandler, IParameterExceptionHandler {

    /**
     * Runs a command's body and turns its exceptions into a one-line message and exit code 1.
     * Usage errors ({@link ParameterException}) go on to picocli, which reports them with code 2.
     * The commands call this themselves so the behaviour holds however the command line is built
     * (e.g. {@code new CommandLine(new AtaCommand())} in tests), not only through {@code main}.
     */
    static int guard(CommandSpec spec, Callable<Integer> body) {
        try {
            return body.call();
        } catch (ParameterException e) {
            throw e;
        } catch (Exception e) {
            return report(e, spec.commandLine());
        }
    }

    /** Prints the one-line message (and the stack trace if asked for) and returns exit code 1. */
    static int report(Exception e, CommandLine commandLine) {
        PrintWriter err = commandLine.getErr();
        boolean userError = isUserError(e);
        err.println(commandLine.getCommandSpec().qualifiedName() + ": error: "
                + (userError ? message(e) : "internal error: " + e));
        if (debug(commandLine)) {
            e.printStackTrace(err);
        } else if (!userError) {
            err.println("(run again with --verbose, or with ATA_DEBUG=1 set, to see the stack trace)");
        }
        err.flush();
        return CommandLine.ExitCode.SOFTWARE;
    }

    /** For exceptions that escape a command without {@link #guard} (e.g. from another subcommand). */
    @Override
    public int handleExecutionException(Exception e, CommandLine commandLine, ParseResult parseResult) {
        return report(e, commandLine);
    }

    /** A usage error: the message, suggestions for a mistyped option, and where to find help. */
    @Override
    public int handleParseException(ParameterException e, String[] args) {
        CommandLine commandLine = e.getCommandLine();
        PrintWriter err = commandLine.getErr();
        String name = commandLine.getCommandSpec().qualifiedName();
        err.println(name + ": " + e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + name + " --help' for more information.");
        if (debug(commandLine)) {
            e.printStackTrace(err);
        }
        err.flush();
        return commandLine.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * Problems with the user's input or files, whose message is written for the user: the broker
     * throws IllegalArgumentException for bad policy names, scenarios and logs.
     */
    private static boolean isUserError(Exception e) {
        return e instanceof IllegalArgumentException
                || e instanceof RunFailure
                || e instanceof TimingExportException
                || e instanceof UncheckedIOException
                || e instanceof IOException
                || e instanceof DurationSource.ExhaustedException;
    }

    private static String message(Exception e) {
        String message = e.getMessage() == null || e.getMessage().isBlank()
                ? e.getClass().getSimpleName()
                : e.getMessage();
        if (e instanceof UncheckedIOException u && u.getCause() != null) {
            String reason = reason(u.getCause());
            if (!message.contains(reason)) {
                message += ": " + reason;
            }
        }
        return message;
    }

    /** Why a file could not be read, in words: "no such file", "permission denied", ... */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        String m = e.getMessage();
        if (m == null) {
            return e.getClass().getSimpleName();
        }
        int open = m.lastIndexOf(" (");
        // FileNotFoundException says "path (No such file or directory)": keep the part in brackets
        return e instanceof FileNotFoundException && open >= 0 && m.endsWith(")")
                ? m.substring(open + 2, m.length() - 1).toLowerCase(Locale.ROOT)
                : m;
    }

    /** {@code --verbose} anywhere on the command line, or {@code ATA_DEBUG} set (and not 0/false). */
    static boolean debug(CommandLine commandLine) {
        String env = System.getenv("ATA_DEBUG");
        if (env != null
                && !env.isBlank()
                && !env.equals("0")
                && !env.toLowerCase(Locale.ROOT).equals("false")) {
            return true;
        }
        for (ParseResult r = commandLine.getCommandSpec().root().commandLine().getParseResult();
                r != null;
                r = r.subcommand()) {
            if (r.hasMatchedOption("--verbose")) {
                return true;
            }
        }
        return false;
    }
}
