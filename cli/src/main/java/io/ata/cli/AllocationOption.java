package io.ata.cli;

import io.ata.broker.BrokerSettings;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --allocation MODE[,MODE]}: how a benchmark's broker allocates, each mode measured side by
 * side. A picocli mixin of {@code bench-live} and {@code bench-fleet}, so both name the modes the
 * same way and a user compares them the same way.
 */
final class AllocationOption {
    /** Each round planned when it opens. */
    static final String AT_OPEN = "at-open";
    /** Round k+1 planned when round k opens, as {@code ata broker --pipelined-allocation}. */
    static final String PIPELINED = "pipelined";

    @Option(
            names = "--allocation",
            paramLabel = "MODE",
            split = ",",
            defaultValue = AT_OPEN + "," + PIPELINED,
            description = "How the broker allocates, each measured side by side: " + AT_OPEN
                    + " (each round planned when it opens) and " + PIPELINED
                    + " (planned when the round before opens, as `ata broker --pipelined-allocation`) (default:"
                    + " ${DEFAULT-VALUE}).")
    List<String> modes;

    /** The modes asked for; one not known is a usage error of {@code command}. */
    List<String> modes(CommandSpec command) {
        for (String mode : modes) {
            if (!mode.equals(AT_OPEN) && !mode.equals(PIPELINED)) {
                throw new ParameterException(
                        command.commandLine(),
                        "--allocation takes " + AT_OPEN + " and " + PIPELINED + ", was '" + mode + "'");
            }
        }
        return modes;
    }

    /** {@code base} allocating as {@code mode} says. */
    static BrokerSettings settings(BrokerSettings base, String mode) {
        return base.withPipelinedAllocation(mode.equals(PIPELINED));
    }
}
