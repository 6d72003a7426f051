package io.ata.cli;

import picocli.CommandLine.Option;

/**
 * {@code --time-model MODEL}: which of the paper's time models the fleet's task times follow, by
 * default linear. A picocli mixin of {@code ata simulate} and {@code ata demo}, so both name, check
 * and default the model the same way; the demo words its help for agents (DemoCommand.properties).
 */
final class TimeModelOption {
    @Option(
            names = "--time-model",
            paramLabel = "MODEL",
            defaultValue = "linear",
            converter = OptionValues.TimeModel.class,
            completionCandidates = OptionValues.TimeModelNames.class,
            description = "The paper's time model for worker j's task time: ${COMPLETION-CANDIDATES} "
                    + "(default: ${DEFAULT-VALUE}). Not with --scenario.")
    String name;
}
