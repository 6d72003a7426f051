package io.ata.cli;

import io.ata.trainer.AggregatorSettings;
import io.ata.trainer.NormBound;
import io.ata.trainer.TrainerConfig;
import io.ata.trainer.TrainerRules;
import java.util.Iterator;
import picocli.CommandLine.Option;

/**
 * How the trainer screens and combines a round's gradients ({@code --aggregator},
 * {@code --trim-fraction}, {@code --norm-factor}, {@code --norm-min-results},
 * {@code --max-gradient-norm}): a picocli mixin of {@code ata trainer}. The values are checked by
 * the trainer's classes, whose {@link IllegalArgumentException} the command reports as a usage error.
 */
final class AggregationOptions {

    @Option(
            names = "--aggregator",
            paramLabel = "RULE",
            defaultValue = "mean",
            completionCandidates = Aggregators.class,
            description = "How the round's B gradients become one: ${COMPLETION-CANDIDATES} (trimmed-mean: per "
                    + "coordinate, see --trim-fraction) (default: ${DEFAULT-VALUE}).")
    String aggregator;

    @Option(
            names = "--trim-fraction",
            paramLabel = "F",
            defaultValue = "0.1",
            description = "For trimmed-mean: the fraction of the values of each coordinate cut from each end, "
                    + "in [0, 0.5) (default: ${DEFAULT-VALUE}).")
    double trimFraction;

    @Option(
            names = "--norm-factor",
            paramLabel = "K",
            defaultValue = "10",
            description = "Clip a result's gradient to L2 norm K x the median norm of the round's accepted results "
                    + "when it is above; Infinity: off (default: ${DEFAULT-VALUE}).")
    double normFactor;

    @Option(
            names = "--norm-min-results",
            paramLabel = "N",
            defaultValue = "3",
            description = "Accepted results a round needs before its own median is the scale of --norm-factor; "
                    + "before that the previous round's median is (default: ${DEFAULT-VALUE}).")
    int normMinResults;

    @Option(
            names = "--max-gradient-norm",
            paramLabel = "MAX",
            defaultValue = "Infinity",
            description = "Clip every result's gradient to L2 norm MAX, whatever the others "
                    + "(default: ${DEFAULT-VALUE}, no cap).")
    double maxGradientNorm;

    /** Sets the aggregator and the norm bound; throws IllegalArgumentException for a value out of range. */
    void applyTo(TrainerConfig.Builder builder) {
        try {
            builder.aggregator(
                    TrainerRules.aggregators().find(aggregator).create(new AggregatorSettings(trimFraction)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--aggregator: " + e.getMessage(), e);
        }
        builder.normBound(new NormBound(normFactor, normMinResults, maxGradientNorm));
    }

    /** The aggregators' names, for {@code ${COMPLETION-CANDIDATES}} in the help. */
    static final class Aggregators implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return TrainerRules.aggregators().names().iterator();
        }
    }
}
