package io.ata.cli;

import io.ata.bench.demo.DemoNetwork;
import io.ata.bench.demo.DemoPlan;
import io.ata.bench.demo.DemoReport;
import io.ata.broker.BrokerSettings;
import io.ata.lab.report.Reports;
import io.ata.local.StopSignal;
import io.ata.ml.data.DataSplit;
import io.ata.ml.data.DatasetException;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.Topics;
import io.ata.trainer.NetworkModel;
import io.ata.trainer.TrainerConfig;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata demo}: the whole live system on one machine, and what ATA buys on it. An embedded
 * Kafka broker (or the user's cluster), the Schema Registry, the ATA broker with its HTTP queries,
 * a fleet of agents whose task times follow one of the paper's time models (each task's measured
 * compute time stretched to an emulated duration, scaled down so a round takes a fraction of a
 * second), and one training job per policy, one after another on the same fleet: a neural network
 * trained with DJL (by default {@code mlp} on Fashion-MNIST, or on the synthetic data set when the
 * files are not installed), or with {@code --workload quadratic} the paper's quadratic problem. For
 * each job: wall time, total worker time (every task the agents ran for it, late ones included, from
 * the timings topic), wasted work (worker time of the results the trainer did not use), mean round
 * time (over every round and over the last four fifths), and how far training got: a network's
 * test accuracy over wall and worker time, the time to hold 2 points below {@code --target-accuracy}
 * for good and to first reach it, the quadratic problem's final suboptimality.
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
                    + "agents, and one training job per policy, one after another on the same fleet: a neural "
                    + "network trained with DJL (--model, default mlp, on --data: Fashion-MNIST when its files are "
                    + "installed, else the synthetic data set), or the paper's quadratic problem "
                    + "(--workload quadratic).",
            "Prints wall time, worker time, wasted work and mean round time (over every round and over the last "
                    + "four fifths) per policy, with a network's final test accuracy, the wall and worker time until "
                    + "it held 2 points below --target-accuracy for good, and until it first reached the target "
                    + "(the quadratic problem: final suboptimality); writes summary.csv, rounds.png, "
                    + "allocation.png, a network's eval.csv and accuracy.png, and each job's timings "
                    + "(timings-JOB.csv, for 'ata replay --log') into --out.",
            "While it runs, the broker's statistics can be queried over HTTP (the URL is printed)."
        })
public final class DemoCommand extends GuardedCommand {
    static final String DEFAULT_POLICIES = "ata-auto,gta,uta";
    static final String NETWORK = "network";
    static final String QUADRATIC = "quadratic";
    /** Rounds per policy unless --rounds: enough for the mlp on Fashion-MNIST to pass 80% test accuracy. */
    static final long DEFAULT_ROUNDS_NETWORK = 150;

    static final long DEFAULT_ROUNDS_QUADRATIC = 150;
    /**
     * A network's task times at full scale unless --time-scale: each task's real compute (12 agents
     * sharing this machine's cores) is stretched to its drawn time, and at a smaller scale the
     * drawn times of the fast agents fall below that compute, so the fleet the broker sees is
     * nearly flat and there is nothing to choose between (README, "The live system").
     */
    static final double DEFAULT_TIME_SCALE_NETWORK = 1.0;
    /** The quadratic problem's compute is negligible, so its rounds can be short. */
    static final double DEFAULT_TIME_SCALE_QUADRATIC = 0.2;
    /** The quadratic problem's SGD step: the paper's 1e-4 needs millions of rounds. */
    static final double LEARNING_RATE_QUADRATIC = 0.5;
    /** The network's optimizer unless --optimizer: Adam at its usual step, robust without tuning. */
    static final String OPTIMIZER_NETWORK = TrainerConfig.ADAM;

    static final double LEARNING_RATE_NETWORK = 1e-3;
    static final long DEFAULT_EVAL_EVERY = 10;
    /** Exit code when stopped by Ctrl-C before the end (128 + SIGINT, as shells report it). */
    static final int INTERRUPTED = 130;

    @Option(
            names = "--workload",
            paramLabel = "network|quadratic",
            defaultValue = NETWORK,
            description = "What the jobs train: network (--model on --data, with DJL) or quadratic (the paper's "
                    + "problem, the demo of earlier versions) (default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(
            names = "--model",
            paramLabel = "MODEL",
            defaultValue = "mlp",
            description = "The network: mlp (784-256-128-10), cnn, or e.g. mlp:512,256 or cnn:8,16 (input and classes "
                    + "from --data) (default: ${DEFAULT-VALUE}).")
    String model;

    @Option(
            names = "--data",
            paramLabel = "DATA",
            description = "The network's data set: fashion-mnist, synthetic[:SEED], a directory of IDX files or a "
                    + ".csv file. Default: fashion-mnist where its files are installed (e.g. by the Debian package "
                    + "dataset-fashion-mnist), else synthetic, which the demo then says. Nothing is downloaded.")
    String data;

    @Option(
            names = "--eval-every",
            paramLabel = "N",
            description = "Score the network on the test set every N rounds (and at rounds 0 and the last) "
                    + "(default: " + DEFAULT_EVAL_EVERY + ").")
    Long evalEvery;

    @Option(
            names = "--target-accuracy",
            paramLabel = "A",
            defaultValue = "0.8",
            description = "The test accuracy whose wall and worker time to first reach the reports give, and 2 "
                    + "points below it the accuracy whose time to hold for good they give, in (0, 1] "
                    + "(default: ${DEFAULT-VALUE}).")
    double targetAccuracy;

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
            description =
                    DEFAULT_ROUNDS_NETWORK == DEFAULT_ROUNDS_QUADRATIC
                            ? "Rounds per policy (default: " + DEFAULT_ROUNDS_NETWORK
                                    + ", for a network and the quadratic " + "problem alike)."
                            : "Rounds per policy (default: " + DEFAULT_ROUNDS_NETWORK + " for a network, "
                                    + DEFAULT_ROUNDS_QUADRATIC + " for the quadratic problem).")
    Long rounds;

    @Option(
            names = "--warmup-rounds",
            paramLabel = "R",
            defaultValue = "30",
            description = "Rounds of an unmeasured uta job run before the measured ones, so that the first policy "
                    + "does not pay the fleet's start-up (JIT compilation, PyTorch's first calls); 0 for none "
                    + "(default: ${DEFAULT-VALUE}).")
    long warmupRounds;

    /** Its help says how the demo runs them: see DemoCommand.properties. */
    @Mixin
    PolicyListOption policies = new PolicyListOption(DEFAULT_POLICIES);

    /** Its help speaks of agents and gives the linear model: see DemoCommand.properties. */
    @Mixin
    TimeModelOption timeModel;

    @Option(
            names = "--time-scale",
            paramLabel = "S",
            description = "Factor on every emulated task time (default: " + DEFAULT_TIME_SCALE_NETWORK
                    + " for a network, whose real compute would flatten a faster fleet; "
                    + DEFAULT_TIME_SCALE_QUADRATIC + " for the quadratic problem).")
    Double timeScale;

    /** Its help differs from ata trainer's, for the defaults differ: see DemoCommand.properties. */
    @Mixin
    OptimizerOptions optimizer;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "5",
            description = "Seed of the agents' task times, of the policies' tie-breaking, and of a network's initial "
                    + "parameters and tasks' samples (default: ${DEFAULT-VALUE}).")
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

    @Option(
            names = "--pipelined-allocation",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Round k+1's tasks planned and sent when round k opens, from statistics one round older"
                    + " (default: on; --no-pipelined-allocation plans each round when it opens; see `ata broker"
                    + " --help`).")
    boolean pipelinedAllocation;

    /**
     * Optional here: without {@code --bootstrap-servers} the demo runs an embedded broker and
     * registry. Their help says so: it comes from DemoCommand.properties.
     */
    @Mixin
    KafkaOptions kafka;

    @Mixin
    LogOptions logging;

    @Override
    int execute() {
        List<String> policyNames = checkOptions();
        String[] fallback = new String[1];
        DemoNetwork network = workload.equals(NETWORK) ? network(fallback) : null;
        DemoPlan plan = plan(policyNames, network);
        if (plan.onExistingCluster() && kafka.topicPrefix == null) {
            kafka.topicPrefix = "ata-demo-" + plan.runId() + ".";
        }
        Topics topics = kafka.topics(Math.max(Topics.DEFAULT_TASK_PARTITIONS, agents));
        logging.apply("error");
        Reports.createDirectory(out.path());

        TaskTimeDistribution[] model = TimeModels.byName(timeModel.name, agents);
        BrokerSettings settings = plan.brokerSettings(model).withPipelinedAllocation(pipelinedAllocation);
        DemoReport report = new DemoReport(
                plan, spec.commandLine().getOut(), spec.commandLine().getErr());
        report.started(model);
        if (fallback[0] != null) {
            report.fellBackToSynthetic(fallback[0]);
        }
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

    /** Settles what to run from the checked options. */
    private DemoPlan plan(List<String> policyNames, DemoNetwork network) {
        if (network != null) {
            optimizer.defaults(OPTIMIZER_NETWORK, LEARNING_RATE_NETWORK);
        } else {
            optimizer.defaults(TrainerConfig.SGD, LEARNING_RATE_QUADRATIC);
        }
        String runId = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
        return new DemoPlan(
                agents,
                batch,
                rounds != null ? rounds : network != null ? DEFAULT_ROUNDS_NETWORK : DEFAULT_ROUNDS_QUADRATIC,
                warmupRounds,
                policyNames,
                timeModel.name,
                timeScale != null
                        ? timeScale
                        : network != null ? DEFAULT_TIME_SCALE_NETWORK : DEFAULT_TIME_SCALE_QUADRATIC,
                optimizer::applyTo,
                seed,
                httpPort,
                out.path(),
                runId,
                kafka.clusterNamed(),
                network);
    }

    /**
     * The network and its data set, loaded here so a wrong {@code --model} or {@code --data} is
     * reported before anything starts.
     *
     * @param fallback receives why Fashion-MNIST was not used, when the default fell back to synthetic
     */
    private DemoNetwork network(String[] fallback) {
        String dataName = data;
        DataSplit split;
        try {
            if (dataName == null) {
                try {
                    dataName = DatasetResolver.FASHION_MNIST;
                    split = DatasetResolver.standard().resolve(dataName);
                } catch (DatasetException notInstalled) {
                    fallback[0] = notInstalled.getMessage();
                    dataName = DatasetResolver.SYNTHETIC;
                    split = DatasetResolver.standard().resolve(dataName);
                }
            } else {
                split = DatasetResolver.standard().resolve(dataName);
            }
        } catch (DatasetException e) {
            throw usageError("Invalid value for option '--data': " + e.getMessage());
        }
        try {
            NetworkSpec spec = NetworkSpec.parse(
                    model, split.train().featureShape(), split.train().classes());
            NetworkModel network = new NetworkModel(
                    spec,
                    dataName.trim(),
                    split,
                    TrainerConfig.DEFAULT_SAMPLES_PER_TASK,
                    TrainerConfig.DEFAULT_MICRO_BATCH,
                    seed);
            return new DemoNetwork(network, evalEvery != null ? evalEvery : DEFAULT_EVAL_EVERY, targetAccuracy);
        } catch (IllegalArgumentException e) {
            throw usageError("Invalid value for option '--model': " + e.getMessage());
        }
    }

    private List<String> checkOptions() {
        requirePositive("--agents", agents);
        requirePositive("--batch", batch);
        if (warmupRounds < 0) {
            throw usageError("Invalid value for option '--warmup-rounds': must be 0 or more, was " + warmupRounds);
        }
        if (rounds != null) {
            requirePositive("--rounds", rounds);
        }
        workload = workload.trim().toLowerCase(Locale.ROOT);
        if (workload.equals(QUADRATIC)) {
            for (String networkOnly : List.of("--model", "--data", "--eval-every", "--target-accuracy")) {
                if (spec.commandLine().getParseResult().hasMatchedOption(networkOnly)) {
                    throw usageError(networkOnly + " applies to --workload network only");
                }
            }
        } else if (!workload.equals(NETWORK)) {
            throw usageError("Invalid value for option '--workload': unknown workload '" + workload + "'; known: "
                    + NETWORK + ", " + QUADRATIC);
        }
        if (evalEvery != null) {
            requirePositive("--eval-every", evalEvery);
        }
        if (!(targetAccuracy > 0 && targetAccuracy <= 1)) {
            throw usageError("Invalid value for option '--target-accuracy': must be in (0, 1], was " + targetAccuracy);
        }
        optimizer.check();
        if (timeScale != null && (!(timeScale > 0) || Double.isInfinite(timeScale))) {
            throw usageError("Invalid value for option '--time-scale': must be a finite number > 0, was " + timeScale);
        }
        requirePort("--http-port", httpPort);
        if (kafka.bootstrapServers != null && kafka.bootstrapServers.isBlank()) {
            throw usageError("Invalid value for option '--bootstrap-servers': empty");
        }
        if (kafka.clusterNamed()) {
            // as on the other commands, bootstrap.servers in --command-config names the cluster
            // when --bootstrap-servers does not; a usage error when neither does
            kafka.bootstrapServers();
        }
        List<String> names = policies.names(spec);
        List<String> jobs = names.stream().map(DemoPlan::jobSuffix).toList();
        if (jobs.stream().distinct().count() != jobs.size()) {
            throw usageError("Invalid value for option '--policies': a policy is named twice");
        }
        return names;
    }
}
