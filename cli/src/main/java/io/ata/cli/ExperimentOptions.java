package io.ata.cli;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.lab.sim.DurationSource;
import io.ata.lab.sim.Experiment;
import io.ata.lab.sim.StatisticsAge;
import io.ata.workloads.QuadraticProblem;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options {@code simulate} and {@code replay} share: the output directory, the batch, the
 * policies, the seeds, ATA's constants, the threads and the charts. One picocli mixin, so both
 * commands spell, default and check them the same way.
 */
final class ExperimentOptions extends CheckedOptions {
    static final String DEFAULT_POLICIES = "fta,gta,uta,ata,ata-empirical";

    /** {@code --out DIR}, by default {@code out/simulate} or {@code out/replay}. */
    @Mixin
    OutputDirectory out;

    @Option(
            names = "--batch",
            paramLabel = "B",
            defaultValue = "23",
            description = "Tasks per round (gradients per SGD step) (default: ${DEFAULT-VALUE}).")
    int batch;

    @Mixin
    PolicyListOption policies = new PolicyListOption(DEFAULT_POLICIES);

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "5",
            description =
                    "First seed; it fixes the durations, the SGD noise and tie-breaking (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--seeds",
            paramLabel = "N",
            defaultValue = "1",
            description =
                    "Number of seeds: runs seeds S..S+N-1 and reports mean and spread (default: ${DEFAULT-VALUE}).")
    int seeds;

    @Option(
            names = "--alpha",
            paramLabel = "A",
            description = "ATA's sub-exponential constant alpha under --constants paper "
                    + "(default: measured from the workers' task times).")
    Double alpha;

    @Option(
            names = "--eta",
            paramLabel = "E",
            description = "ATA-Empirical's relative constant eta under --constants paper "
                    + "(default: measured from the workers' task times).")
    Double eta;

    @Option(
            names = "--constants",
            paramLabel = "paper|experiments",
            defaultValue = "paper",
            converter = OptionValues.Convention.class,
            description = {
                "How ATA and ATA-Empirical set their confidence constants (default: paper):",
                "paper: c = 2 alpha and c_rel = 2 eta, as in the paper's text;",
                "experiments: c = 4e * 2 max(mu) and c_rel = 4e * 2, as in the authors' experiment code."
            })
    ConstantConvention constants;

    @Option(
            names = "--threads",
            paramLabel = "T",
            description =
                    "Runs in parallel, one policy and seed per thread (default: the number of processors, ${DEFAULT-VALUE}).")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(
            names = "--statistics",
            paramLabel = "fresh|stale|both",
            defaultValue = "fresh",
            description = {
                "How old the statistics are that each round is planned from (default: ${DEFAULT-VALUE}):",
                "fresh: round k after round k-1 was observed, as in the paper;",
                "stale: round k after round k-2, as pipelined allocation would plan it live;",
                "both: each policy twice, the stale run labelled POLICY@stale."
            })
    String statistics;

    @Option(names = "--no-charts", description = "Write the CSV files and run.txt only, no PNG charts.")
    boolean noCharts;

    /** --log-level and --verbose, as on every command; applied by the command when it starts. */
    @Mixin
    LogOptions logging;

    /** The policies named by {@code --policies}, checked by the broker. */
    List<String> policyNames() {
        return policies.names(command);
    }

    /**
     * The experiment these options ask for: their batch, policies, seeds and threads, with ATA's
     * {@code constants} for a fleet whose true (or, in a replay, hindsight) mean task times are
     * {@code means}.
     */
    Experiment.Setup setup(
            AtaConstants constants,
            double[] means,
            long rounds,
            LongFunction<DurationSource> durationsForSeed,
            QuadraticProblem problem) {
        return new Experiment.Setup(
                constants.context(means.length, batch, means),
                policyNames(),
                rounds,
                seed,
                seeds,
                durationsForSeed,
                problem,
                threads,
                statisticsAges());
    }

    /** The statistics' ages {@code --statistics} names, each a run of every policy. */
    List<StatisticsAge> statisticsAges() {
        return switch (statistics) {
            case "fresh" -> List.of(StatisticsAge.FRESH);
            case "stale" -> List.of(StatisticsAge.ONE_ROUND_STALE);
            case "both" -> List.of(StatisticsAge.FRESH, StatisticsAge.ONE_ROUND_STALE);
            default ->
                throw usageError("Invalid value for option '--statistics': expected fresh, stale or both, was '"
                        + statistics + "'");
        };
    }

    /** Checks the values picocli cannot check by type alone. */
    void validate() {
        requirePositive("--batch", batch);
        requirePositive("--seeds", seeds);
        requirePositive("--threads", threads);
        statisticsAges();
        requirePositiveIfGiven("--alpha", alpha);
        requirePositiveIfGiven("--eta", eta);
        if (constants == ConstantConvention.EXPERIMENTS && (alpha != null || eta != null)) {
            throw usageError("--alpha and --eta apply to --constants paper only; under --constants experiments "
                    + "ATA's constants come from the true means");
        }
        policyNames();
    }

    /** The seeds as the reports show them: "5" or "5..7 (3 seeds)". */
    String seedRange() {
        return seeds == 1 ? Long.toString(seed) : seed + ".." + (seed + seeds - 1) + " (" + seeds + " seeds)";
    }

    /** Puts the seeds into a run's settings: {@code seed: 5} for one, {@code seeds: 5..7 (3 seeds)} for several. */
    void describeSeedsInto(Map<String, String> settings) {
        settings.put(seeds == 1 ? "seed" : "seeds", seedRange());
    }

    /** The seeds for a title: "seed 5" or "seeds 5..7". */
    String seedLabel() {
        return seeds == 1 ? "seed " + seed : "seeds " + seed + ".." + (seed + seeds - 1);
    }

    /** The command line as typed, quoted for a POSIX shell, e.g. {@code ata simulate --rounds 1000}. */
    String invocation() {
        List<String> args = command.root().commandLine().getParseResult().originalArgs();
        String root = command.root().name();
        return args.isEmpty()
                ? root
                : root + " " + args.stream().map(ExperimentOptions::shellQuote).collect(Collectors.joining(" "));
    }

    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private static String shellQuote(String arg) {
        return SAFE.matcher(arg).matches() ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }

    private void requirePositiveIfGiven(String option, Double value) {
        OptionChecks.requirePositiveIfGiven(command, option, value);
    }

    void requirePositive(String option, long value) {
        OptionChecks.requirePositive(command, option, value);
    }
}
