package io.ata.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Checks of option values that their Java types cannot express. Each failure is a usage error
 * worded as picocli words its own ({@code Invalid value for option '--batch': ...}), so that the
 * user reads one style whichever check caught the mistake.
 */
final class OptionChecks {
    private OptionChecks() {}

    /** {@code value} must be above 0. */
    static void requirePositive(CommandSpec command, String option, long value) {
        if (value <= 0) {
            throw invalid(command, option, "must be > 0, was " + value);
        }
    }

    /** {@code value}, where given, must be a finite number above 0. */
    static void requirePositiveIfGiven(CommandSpec command, String option, Double value) {
        if (value != null && (!(value > 0) || value.isInfinite())) {
            throw invalid(command, option, "must be a finite number > 0, was " + value);
        }
    }

    /** {@code port} must be a TCP port or 0 (any free port). */
    static void requirePort(CommandSpec command, String option, int port) {
        if (port < 0 || port > 65535) {
            throw invalid(command, option, "must be between 0 and 65535, was " + port);
        }
    }

    /** {@code value}, where given, must not be blank: picocli takes {@code --option=} as an empty value. */
    static void requireNotEmpty(CommandSpec command, String option, String value) {
        if (value != null && value.isBlank()) {
            throw invalid(command, option, "empty");
        }
    }

    private static ParameterException invalid(CommandSpec command, String option, String why) {
        return new ParameterException(command.commandLine(), "Invalid value for option '" + option + "': " + why);
    }
}
