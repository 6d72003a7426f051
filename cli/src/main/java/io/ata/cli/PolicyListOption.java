package io.ata.cli;

import io.ata.allocation.policy.PolicyFactory;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --policies LIST}: the allocation policies a command compares, comma-separated, as the
 * broker's {@link PolicyFactory} reads them. A picocli mixin of {@link ExperimentOptions}
 * ({@code simulate}, {@code replay}) and of {@code ata demo}: each command gives its own default
 * (the initial value, which the help shows), the demo its own help (DemoCommand.properties).
 */
final class PolicyListOption {
    @Option(
            names = "--policies",
            paramLabel = "LIST",
            completionCandidates = OptionValues.PolicyNames.class,
            description = {
                "Comma-separated policies to compare (default: ${DEFAULT-VALUE}).",
                "Known: ${COMPLETION-CANDIDATES}.",
                "ata-hedge:R is ata-auto sending R extra tasks per round and keeping the first B results."
            })
    String list;

    PolicyListOption(String defaultList) {
        this.list = defaultList;
    }

    /** The policies named, checked by the broker's factory; a bad one is a usage error of {@code command}. */
    List<String> names(CommandSpec command) {
        try {
            return PolicyFactory.parseList(list);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    command.commandLine(), "Invalid value for option '--policies': " + e.getMessage());
        }
    }
}
