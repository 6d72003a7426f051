package io.ata.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * A picocli mixin that checks its own options: picocli gives it the command it is mixed into, so
 * that a bad value is a usage error of that command (exit code 2, the hint to its --help).
 */
abstract class CheckedOptions {
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    ParameterException usageError(String message) {
        return new ParameterException(command.commandLine(), message);
    }
}
