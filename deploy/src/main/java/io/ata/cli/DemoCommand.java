package io.ata.cli;

import io.ata.broker.BrokerSettings;
import io.ata.kafka.TopicLayout;
import io.ata.local.LocalDeployment;
import io.ata.policy.ConstantConvention;
import io.ata.policy.PolicyFactory;
import io.ata.report.Reports;
import io.ata.report.RunInfo;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.sim.SubExponentialConstants;
import io.ata.timemodel.TaskTimeDistribution;
import io.ata.timemodel.TimeModels;
import io.ata.timinglog.TimingLogFormat;
import io.ata.timinglog.TimingRecord;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

    private static final List<String> SUMMARY_COLUMNS = List.of(
            "policy",
            "job",
            "agents",
            "batch",
            "rounds",
            "wall_time_s",
            "mean_round_time_ms",
            "total_worker_time_ms",
            "accepted_worker_time_ms",
            "wasted_worker_time_ms",
            "wasted_fraction",
            "tasks_run",
            "tasks_accepted",
            "tasks_late",
            "tasks_cancelled",
            "final_suboptimality",
            "timings_file");

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
        List<String> policyNames = checkOptions();
        boolean existing = kafka.bootstrapServers != null;
        String runId = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
        if (existing && kafka.topicPrefix == null) {
            kafka.topicPrefix = "ata-demo-" + runId + ".";
        }
        TopicLayout layout = kafka.layout(Math.max(TopicLayout.DEFAULT_TASK_PARTITIONS, agents));
        logging.apply("error");
        Reports.createDirectory(out.path());

        PrintWriter stdout = spec.commandLine().getOut();
        TaskTimeDistribution[] model = TimeModels.byName(timeModel, agents);
        List<String> ids = agentIds();
        BrokerSettings settings = brokerSettings(policyNames, model, ids);
        stdout.printf(
                Locale.ROOT,
                "ata demo: %d agents (%s time model x %s: mean task time %s to %s ms), batch %d, "
                        + "%d rounds per policy: %s%n",
                agents,
                timeModel,
                RunInfo.number(timeScale),
                RunInfo.number(model[0].mean() * timeScale),
                RunInfo.number(model[agents - 1].mean() * timeScale),
                batch,
                rounds,
                String.join(", ", policyNames));
        stdout.flush();

        try (StopSignal stop = StopSignal.install("demo")) {
            return run(stop, layout, settings, policyNames, ids, existing, runId);
        }
    }

    /** Runs the demo and reports; everything is closed before this returns (and before the JVM may exit). */
    private int run(
            StopSignal stop,
            TopicLayout layout,
            BrokerSettings settings,
            List<String> policyNames,
            List<String> ids,
            boolean existing,
            String runId) {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long started = System.nanoTime();
        List<LiveDemo.JobOutcome> outcomes = new ArrayList<>();
        boolean interrupted = false;
        try (LocalDeployment local = startKafka(layout, settings, existing, stdout);
                LiveDemo demo = new LiveDemo(local, registry(local, stdout))) {
            String httpUrl = demo.startBroker(settings, httpPort, stop);
            stdout.println("Broker queries:  " + httpUrl + "  (try: curl " + httpUrl + "/jobs, " + httpUrl
                    + "/workers, " + httpUrl + "/jobs/" + jobName(policyNames.get(0), existing, runId) + "/stats)");
            stdout.flush();
            long fleetStart = System.nanoTime();
            for (int j = 1; j <= agents && !stop.requested(); j++) {
                demo.startAgent(demo.agentConfig(ids.get(j - 1))
                        .emulatedTimeModel(timeModel, j)
                        .timeScale(timeScale)
                        .seed(seed));
            }
            interrupted = !demo.awaitFleet(stop);
            if (!interrupted) {
                stdout.printf(
                        Locale.ROOT,
                        "Fleet:           %d agents joined the group %s in %.1f s%n%n",
                        agents,
                        layout.prefix() + "workers",
                        (System.nanoTime() - fleetStart) / 1e9);
                stdout.flush();
            }
            for (String policy : policyNames) {
                if (interrupted) {
                    break;
                }
                LiveDemo.JobOutcome outcome;
                try (Progress progress = Progress.start(policy, rounds, err)) {
                    outcome = demo.runJob(
                            policy,
                            jobName(policy, existing, runId),
                            batch,
                            rounds,
                            seed,
                            learningRate,
                            summary -> progress.accept(1),
                            stop);
                }
                if (outcome == null) {
                    interrupted = true;
                    break;
                }
                outcomes.add(outcome);
                Path timingsFile = out.path().resolve(timingsFileName(outcome.job()));
                TimingExport.write(
                        timingsFile, TimingLogFormat.CSV, outcome.timings().records());
                stdout.printf(
                        Locale.ROOT,
                        "%s: %d rounds in %.1f s, mean round %.1f ms, worker time %.1f s, wasted %.1f s%n",
                        policy,
                        outcome.rounds(),
                        outcome.wallSeconds(),
                        outcome.meanRoundMs(),
                        outcome.totalWorkerMs() / 1e3,
                        outcome.wastedWorkerMs() / 1e3);
                stdout.flush();
            }
            if (interrupted) {
                err.println("ata demo: stopping (interrupted)...");
                err.flush();
            }
        }
        double wall = (System.nanoTime() - started) / 1e9;
        if (!outcomes.isEmpty()) {
            writeSummary(outcomes);
            stdout.println();
            stdout.print(table(outcomes));
            stdout.println();
            stdout.println("worker time: compute time of every task the agents ran for the job (late ones included); "
                    + "wasted: of results the trainer did not use");
            stdout.println("outputs in " + out.path().toAbsolutePath().normalize() + ": summary.csv, "
                    + String.join(
                            ", ",
                            outcomes.stream().map(o -> timingsFileName(o.job())).toList())
                    + " (replay one with: ata replay --log "
                    + out.path().resolve(timingsFileName(outcomes.get(0).job())) + ")");
        }
        stdout.printf(Locale.ROOT, "%s; demo wall time %.1f s%n", interrupted ? "interrupted" : "done", wall);
        stdout.flush();
        return interrupted ? INTERRUPTED : 0;
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
        List<String> jobs = names.stream().map(DemoCommand::jobSuffix).toList();
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

    private List<String> agentIds() {
        int width = Integer.toString(agents).length();
        List<String> ids = new ArrayList<>();
        for (int j = 1; j <= agents; j++) {
            ids.add(String.format(Locale.ROOT, "agent-%0" + width + "d", j));
        }
        return ids;
    }

    /**
     * The broker's settings: the emulated means for the oracle policies, the model's constants for
     * ATA and ATA-Empirical (alpha scales with the time scale, eta does not), when those run.
     */
    private BrokerSettings brokerSettings(List<String> names, TaskTimeDistribution[] model, List<String> ids) {
        BrokerSettings d = BrokerSettings.defaults();
        Map<String, Double> means = new LinkedHashMap<>();
        if (names.contains("fta") || names.contains("proportional")) {
            for (int j = 0; j < agents; j++) {
                means.put(ids.get(j), model[j].mean() * timeScale);
            }
        }
        double alpha = Double.NaN;
        double eta = Double.NaN;
        if (names.contains("ata") || names.contains("ata-empirical")) {
            SubExponentialConstants measured = SubExponentialConstants.of(model, seed);
            alpha = measured.alpha() * timeScale;
            eta = measured.eta();
        }
        return new BrokerSettings(
                d.topicPrefix(),
                d.defaultPolicy(),
                means,
                ConstantConvention.PAPER,
                alpha,
                eta,
                d.livenessTimeout(),
                d.livenessCheck());
    }

    private LocalDeployment startKafka(
            TopicLayout layout, BrokerSettings settings, boolean existing, PrintWriter stdout) {
        long start = System.nanoTime();
        LocalDeployment local;
        if (existing) {
            kafka.topicNames(); // a clear message if the cluster cannot be reached
            local = LocalDeployment.existing(kafka.bootstrapServers(), kafka.kafkaProperties(), layout, settings);
            stdout.printf(
                    Locale.ROOT,
                    "Kafka:           %s, topics %s* (created if missing)%n",
                    local.bootstrapServers(),
                    layout.prefix());
        } else {
            local = LocalDeployment.embedded(layout, settings);
            stdout.printf(
                    Locale.ROOT,
                    "Kafka:           embedded KRaft broker at %s (started in %.1f s), topics %s*%n",
                    local.bootstrapServers(),
                    (System.nanoTime() - start) / 1e9,
                    layout.prefix());
        }
        stdout.flush();
        return local;
    }

    private SchemaRegistryClient registry(LocalDeployment local, PrintWriter stdout) {
        if (kafka.schemaRegistryUrl != null) {
            SchemaRegistryClient client = kafka.registry(kafka.schemaRegistryUrl);
            stdout.println("Schema Registry: " + kafka.schemaRegistryUrl);
            return client;
        }
        stdout.println("Schema Registry: " + local.registryUrl() + "  (embedded; e.g. curl " + local.registryUrl()
                + "/subjects)");
        return local.registry();
    }

    /** The job of a policy: {@code demo-POLICY}, with the run's time stamp on a shared cluster. */
    private static String jobName(String policy, boolean existing, String runId) {
        return "demo-" + (existing ? runId + "-" : "") + jobSuffix(policy);
    }

    private static String jobSuffix(String policy) {
        return policy.replaceAll("[^A-Za-z0-9._-]", "-");
    }

    static String timingsFileName(String job) {
        return "timings-" + job + ".csv";
    }

    private void writeSummary(List<LiveDemo.JobOutcome> outcomes) {
        StringBuilder csv = new StringBuilder(String.join(",", SUMMARY_COLUMNS)).append('\n');
        for (LiveDemo.JobOutcome o : outcomes) {
            double total = o.totalWorkerMs();
            List<String> row = List.of(
                    o.policy(),
                    o.job(),
                    Integer.toString(agents),
                    Integer.toString(batch),
                    Long.toString(o.rounds()),
                    number(o.wallSeconds()),
                    number(o.meanRoundMs()),
                    number(total),
                    number(o.acceptedWorkerMs()),
                    number(o.wastedWorkerMs()),
                    number(total > 0 ? o.wastedWorkerMs() / total : 0),
                    Integer.toString(o.timings().records().size()),
                    Long.toString(o.timings().count(TimingRecord.Status.COMPLETED)),
                    Long.toString(o.timings().count(TimingRecord.Status.LATE)),
                    Long.toString(o.timings().count(TimingRecord.Status.CANCELLED)),
                    number(o.finalObjective()),
                    timingsFileName(o.job()));
            csv.append(String.join(",", row.stream().map(DemoCommand::csvField).toList()))
                    .append('\n');
        }
        Path file = out.path().resolve(Reports.SUMMARY);
        try {
            Files.writeString(file, csv, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static String csvField(String s) {
        return s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0
                ? s
                : '"' + s.replace("\"", "\"\"") + '"';
    }

    /** Exact text for a CSV cell; NaN as an empty cell. */
    private static String number(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    private String table(List<LiveDemo.JobOutcome> outcomes) {
        String[] header = {"policy", "rounds", "wall time", "mean round", "worker time", "wasted work", "final subopt."
        };
        List<String[]> rows = new ArrayList<>();
        rows.add(header);
        for (LiveDemo.JobOutcome o : outcomes) {
            double total = o.totalWorkerMs();
            rows.add(new String[] {
                o.policy(),
                Long.toString(o.rounds()),
                String.format(Locale.ROOT, "%.1f s", o.wallSeconds()),
                String.format(Locale.ROOT, "%.1f ms", o.meanRoundMs()),
                String.format(Locale.ROOT, "%.1f s", total / 1e3),
                String.format(
                        Locale.ROOT,
                        "%.1f s (%.0f%%)",
                        o.wastedWorkerMs() / 1e3,
                        total > 0 ? 100 * o.wastedWorkerMs() / total : 0),
                String.format(Locale.ROOT, "%.4g", o.finalObjective())
            });
        }
        int[] width = new int[header.length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < rows.size(); k++) {
            String[] r = rows.get(k);
            for (int i = 0; i < r.length; i++) {
                String cell =
                        i == 0 ? String.format("%-" + width[i] + "s", r[i]) : String.format("%" + width[i] + "s", r[i]);
                sb.append(i == 0 ? "" : "  ").append(cell);
            }
            sb.append('\n');
            if (k == 0) {
                int len = Arrays.stream(width).sum() + 2 * (width.length - 1);
                sb.append("-".repeat(len)).append('\n');
            }
        }
        return sb.toString();
    }
}
