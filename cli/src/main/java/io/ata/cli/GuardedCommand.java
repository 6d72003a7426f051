package io.ata.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What every {@code ata} command that runs something has in common: picocli injects its spec, and
 * {@link #call} runs {@link #execute} under {@link ErrorReporter#guard}, so a failure reaches the user
 * as one line on stderr however the command line was built.
 */
abstract class GuardedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        return ErrorReporter.guard(spec, this::execute);
    }

    /** The command's work, once picocli has set its options; returns the exit code. */
    abstract int execute() throws Exception;

    /** A mistake in the command line: picocli reports it with exit code 2 and the hint to --help. */
    ParameterException usageError(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** A usage error unless {@code value} is above 0 ({@link OptionChecks}). */
    void requirePositive(String option, long value) {
        OptionChecks.requirePositive(spec, option, value);
    }

    /** A usage error unless {@code value}, where given, is a finite number above 0. */
    void requirePositiveIfGiven(String option, Double value) {
        OptionChecks.requirePositiveIfGiven(spec, option, value);
    }

    /** A usage error unless {@code port} is a TCP port or 0 (any free port). */
    void requirePort(String option, int port) {
        OptionChecks.requirePort(spec, option, port);
    }

    /** A usage error if {@code value} was given empty ({@code --option=}). */
    void requireNotEmpty(String option, String value) {
        OptionChecks.requireNotEmpty(spec, option, value);
    }
}
