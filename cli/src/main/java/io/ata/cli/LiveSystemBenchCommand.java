package io.ata.cli;

import picocli.CommandLine.Mixin;

/**
 * A benchmark that runs the live system in this process (bench-live, bench-transport, bench-soak,
 * bench-fleet): its log options default Kafka's own loggers to errors only, so that the tables the
 * benchmark prints stay readable, and a failure reaches the user as one line, as from every command
 * that runs something.
 */
abstract class LiveSystemBenchCommand extends GuardedCommand {
    @Mixin
    LogOptions logging;

    @Override
    final int execute() throws Exception {
        logging.apply("error");
        return bench();
    }

    /** The benchmark, once the log levels are set; returns the exit code. */
    abstract int bench() throws Exception;
}
