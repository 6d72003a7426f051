package io.ata.cli;

import io.ata.trainer.TrainerConfig;
import io.ata.trainer.TrainerRules;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The update rule of a training job and its hyper-parameters ({@code --optimizer},
 * {@code --learning-rate}, {@code --momentum}, {@code --weight-decay}, {@code --beta1},
 * {@code --beta2}, {@code --epsilon}), shared by {@code ata trainer} and {@code ata demo}. A picocli
 * mixin: a setting not given stays unset, so the trainer's defaults apply (or the command's own,
 * see {@link #defaults}); the combinations the trainer refuses are its to check.
 */
final class OptimizerOptions extends CheckedOptions {
    @Option(
            names = "--optimizer",
            paramLabel = "NAME",
            completionCandidates = Optimizers.class,
            description = "The update rule: ${COMPLETION-CANDIDATES} (default: sgd).")
    String optimizer;

    @Option(
            names = "--learning-rate",
            paramLabel = "LR",
            description = "The optimizer's learning rate (default: 1e-4 for sgd on the quadratic, the paper's step; "
                    + "0.01 for sgd on a network; 1e-3 for adam).")
    Double learningRate;

    @Option(names = "--momentum", paramLabel = "MU", description = "SGD's momentum, in [0, 1) (default: 0, plain SGD).")
    Double momentum;

    @Option(
            names = "--weight-decay",
            paramLabel = "WD",
            description = "Weight decay: an L2 term added to the gradient for sgd, decoupled (AdamW) for adam "
                    + "(default: 0).")
    Double weightDecay;

    @Option(names = "--beta1", paramLabel = "B1", description = "Adam's decay of the first moment (default: 0.9).")
    Double beta1;

    @Option(names = "--beta2", paramLabel = "B2", description = "Adam's decay of the second moment (default: 0.999).")
    Double beta2;

    @Option(names = "--epsilon", paramLabel = "EPS", description = "Adam's epsilon (default: 1e-8).")
    Double epsilon;

    /** Normalises the optimizer's name and checks the values a command line can get wrong by itself. */
    void check() {
        if (learningRate != null && !(learningRate > 0 && Double.isFinite(learningRate))) {
            throw usageError("Invalid value for option '--learning-rate': must be > 0, was " + learningRate);
        }
        if (optimizer == null) {
            return;
        }
        optimizer = optimizer.trim().toLowerCase(Locale.ROOT);
        List<String> known = TrainerRules.optimizers().names();
        if (!known.contains(optimizer)) {
            throw usageError("Invalid value for option '--optimizer': unknown optimizer '" + optimizer + "'; known: "
                    + String.join(", ", known));
        }
    }

    /**
     * A command's own optimizer and learning rate, for when {@code --optimizer} is not given; once
     * it is, the trainer's defaults for that optimizer apply to the settings not given.
     */
    void defaults(String optimizerName, double rate) {
        if (optimizer == null) {
            optimizer = optimizerName;
            if (learningRate == null) {
                learningRate = rate;
            }
        }
    }

    /** Puts the optimizer and every hyper-parameter given into {@code builder}. */
    TrainerConfig.Builder applyTo(TrainerConfig.Builder builder) {
        OptionValues.ifGiven(optimizer, builder::optimizer);
        OptionValues.ifGiven(learningRate, builder::learningRate);
        OptionValues.ifGiven(momentum, builder::momentum);
        OptionValues.ifGiven(weightDecay, builder::weightDecay);
        OptionValues.ifGiven(beta1, builder::beta1);
        OptionValues.ifGiven(beta2, builder::beta2);
        OptionValues.ifGiven(epsilon, builder::epsilon);
        return builder;
    }

    /** The optimizers' names, for {@code ${COMPLETION-CANDIDATES}} in the help. */
    static final class Optimizers implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return TrainerRules.optimizers().names().iterator();
        }
    }
}
