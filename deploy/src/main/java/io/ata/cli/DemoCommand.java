package io.ata.cli;

import io.ata.broker.BrokerSettings;
import io.ata.policy.PolicyFactory;
import io.ata.report.Reports;
import io.ata.schemas.Topics;
import io.ata.timemodel.TaskTimeDistribution;
import io.ata.timemodel.TimeModels;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ata demo}: the whole live system on one machine, and what ATA buys on it. An embedded
 * Kafka broker (or the user's cluster), the Schema Registry, the ATA broker with its HTTP queries,
 * a fleet of agents whose task times follow one of the paper's time models (scaled down so a round
 * takes a fraction of a second), and one training job per policy on the paper's quadratic problem,
 * one after another on the same fleet. For each job: wall time, total worker time (every task the
 * agents ran for it, late ones included, from the timings topic), wasted work (worker time of the
 * results the trainer did not use), mean round time and final suboptimality.
 *
 * <p>This class holds the options and checks them; {@link DemoPlan} settles what they ask for,
 * {@link DemoRun} runs it and {@link DemoReport} tells the user what happened.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        resourceBundle = "io.ata.cli.DemoCommand", // the help of the Kafka options: see the kafka field
        description = {
            "Run the live system on this machine (embedded Kafka) and compare policies on it.",
            "Starts an embedded Kafka broker and Schema Registry, the ATA broker, a heterogeneous fleet of worker "
                    + "agents, and one training job per policy (the paper's quadratic problem), one after another "
                    + "on the same fleet.",
            "Prints wall time, worker time, wasted work, mean round time and final suboptimality per policy; "
                    + "writes summary.csv and each job's timings (timings-JOB.csv, for 'ata replay --log') into --out.",
            "While it runs, the broker's statistics can be queried over HTTP (the URL is printed)."
        })
public final class DemoCommand implements Callable<Integer> {
    static final String DEFAULT_POLICIES = "ata-auto,gta,uta";
    /** Exit code when stopped by Ctrl-C before the end (128 + SIGINT, as shells report it). */
    static final int INTERRUPTED = 130;

    @Spec
    CommandSpec spec;

    @Option(
            names = "--agents",
            paramLabel = "N",
            defaultValue = "12",
            description =
                    "Worker agents in the fleet; agent j behaves like worker j of the time model (default: ${DEFAULT-VALUE}).")
    int agents;

    @Option(
            names = "--batch",
            paramLabel = "B",
            defaultValue = "8",
            description = "Tasks per round (gradients per SGD step) (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(
            names = "--rounds",
            paramLabel = "R",
            defaultValue = "150",
            description = "Rounds per policy (default: ${DEFAULT-VALUE}).")
    long rounds;

    @Option(
            names = "--policies",
            paramLabel = "LIST",
            defaultValue = DEFAULT_POLICIES,
            completionCandidates = OptionValues.PolicyNames.class,
            description = {
                "Comma-separated policies, one job each, run in this order (default: ${DEFAULT-VALUE}).",
                "Known: ${COMPLETION-CANDIDATES}. fta and proportional are given the agents' emulated means; "
                        + "ata and ata-empirical the constants measured from the time model."
            })
    String policies;

    @Option(
            names = "--time-model",
            paramLabel = "MODEL",
            defaultValue = "linear",
            converter = OptionValues.TimeModel.class,
            completionCandidates = OptionValues.TimeModelNames.class,
            description = "The paper's time model for agent j's task time in ms: ${COMPLETION-CANDIDATES} "
                    + "(default: ${DEFAULT-VALUE}; linear: 29 j + Exp(29 j)).")
    String timeModel;

    @Option(
            names = "--time-scale",
            paramLabel = "S",
            defaultValue = "0.2",
            description = "Factor on every emulated task time, so a round takes a fraction of a second "
                    + "(default: ${DEFAULT-VALUE}).")
    double timeScale;

    @Option(
            names = "--learning-rate",
            paramLabel = "GAMMA",
            defaultValue = "0.5",
            description = {
                "SGD step on the quadratic problem (default: ${DEFAULT-VALUE}).",
                "The paper's 1e-4 needs millions of rounds to show progress; the demo's few hundred rounds need a"
                        + " larger step (stable below 2 for this problem)."
            })
    double learningRate;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "5",
            description =
                    "Seed of the agents' task times and of the policies' tie-breaking (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    OutputDirectory out;

    @Option(
            names = "--http-port",
            paramLabel = "PORT",
            defaultValue = "0",
            description =
                    "Port of the broker's HTTP queries on 127.0.0.1; 0 for any free port (default: ${DEFAULT-VALUE}).")
    int httpPort;

    /**
     * Optional here: without {@code --bootstrap-servers} the demo runs an embedded broker and
     * registry. Their help says so: it comes from DemoCommand.properties.
     */
    @Mixin
    KafkaOptions kafka;

    @Mixin
    LogOptions logging;

    @Override
    public Integer call() {
        return ErrorReporter.guard(spec, this::demo);
    }

    private int demo() {
        DemoPlan plan = plan();
        if (plan.onExistingCluster() && kafka.topicPrefix == null) {
            kafka.topicPrefix = "ata-demo-" + plan.runId() + ".";
        }
        Topics topics = kafka.topics(Math.max(Topics.DEFAULT_TASK_PARTITIONS, agents));
        logging.apply("error");
        Reports.createDirectory(out.path());

        TaskTimeDistribution[] model = TimeModels.byName(timeModel, agents);
        BrokerSettings settings = plan.brokerSettings(model);
        DemoReport report = new DemoReport(
                plan, spec.commandLine().getOut(), spec.commandLine().getErr());
        report.started(model);
        try (StopSignal stop = StopSignal.install("demo")) {
            return new DemoRun(
                            plan,
                            kafka,
                            topics,
                            settings,
                            report,
                            spec.commandLine().getErr())
                    .run(stop);
        }
    }

    /** Checks the options and settles what to run. */
    private DemoPlan plan() {
        List<String> policyNames = checkOptions();
        String runId = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
        return new DemoPlan(
                agents,
                batch,
                rounds,
                policyNames,
                timeModel,
                timeScale,
                learningRate,
                seed,
                httpPort,
                out.path(),
                runId,
                kafka.bootstrapServers != null);
    }

    private List<String> checkOptions() {
        requirePositive("--agents", agents);
        requirePositive("--batch", batch);
        requirePositive("--rounds", rounds);
        if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
            throw usageError("Invalid value for option '--time-scale': must be a finite number > 0, was " + timeScale);
        }
        if (httpPort < 0 || httpPort > 65535) {
            throw usageError("Invalid value for option '--http-port': must be between 0 and 65535, was " + httpPort);
        }
        if (kafka.bootstrapServers == null && kafka.commandConfig != null) {
            throw usageError("--command-config applies to --bootstrap-servers only (the embedded broker needs none)");
        }
        if (kafka.bootstrapServers != null && kafka.bootstrapServers.isBlank()) {
            throw usageError("Invalid value for option '--bootstrap-servers': empty");
        }
        List<String> names;
        try {
            names = PolicyFactory.parseList(policies);
        } catch (IllegalArgumentException e) {
            throw usageError("Invalid value for option '--policies': " + e.getMessage());
        }
        List<String> jobs = names.stream().map(DemoPlan::jobSuffix).toList();
        if (jobs.stream().distinct().count() != jobs.size()) {
            throw usageError("Invalid value for option '--policies': a policy is named twice");
        }
        return names;
    }

    private void requirePositive(String option, long value) {
        if (value <= 0) {
            throw usageError("Invalid value for option '" + option + "': must be > 0, was " + value);
        }
    }

    private ParameterException usageError(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
