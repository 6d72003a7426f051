package io.ata.cli;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine.Help;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The usage help of a command that cannot run without a Kafka cluster (broker, trainer, worker,
 * export-timings). picocli cannot declare {@code --bootstrap-servers} required there, since
 * {@code bootstrap.servers} in {@code --command-config} may stand in for it, so it would show the
 * option in brackets as if it were optional. This help shows it in the synopsis as the required
 * option it is, as Kafka's own tools do; the option's description names the exception, and
 * {@link KafkaOptions#bootstrapServers()} enforces it.
 */
final class ClusterRequiredHelp extends Help {
    ClusterRequiredHelp(CommandSpec command, ColorScheme colors) {
        super(command, colors);
    }

    @Override
    protected Ansi.Text createDetailedSynopsisOptionsText(
            Collection<ArgSpec> done, Comparator<OptionSpec> optionSort, boolean clusterBooleanOptions) {
        List<OptionSpec> shown = commandSpec().options().stream()
                .map(o -> o.longestName().equals(KafkaOptions.BOOTSTRAP_SERVERS)
                        ? OptionSpec.builder(o).required(true).build()
                        : o)
                .toList();
        return createDetailedSynopsisOptionsText(done, shown, optionSort, clusterBooleanOptions);
    }
}
