package io.ata.cli;

import picocli.CommandLine.Option;

/**
 * {@code -v, --verbose}: print the stack trace of an error. A picocli mixin, declared once for
 * {@code ata} and every subcommand that reports errors; {@link ErrorReporter#debug} reads it from
 * the parse result, wherever on the command line it was given.
 */
final class VerboseOption {
    @Option(
            names = {"-v", "--verbose"},
            description = "Print the stack trace of an error.")
    boolean verbose;
}
