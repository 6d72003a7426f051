package io.ata.cli;

import io.ata.lab.export.TimingExport;
import io.ata.lab.replay.ExhaustionMode;
import io.ata.lab.replay.TraceDurations;
import io.ata.lab.report.ExperimentRunner;
import io.ata.lab.report.RunInfo;
import io.ata.lab.sim.Experiment;
import io.ata.lab.sim.SubExponentialConstants;
import io.ata.lab.timinglog.TimingLog;
import io.ata.lab.timinglog.TimingLogFormat;
import io.ata.lab.timinglog.TimingLogFormatException;
import io.ata.lab.timinglog.TimingLogReader;
import io.ata.local.RunFailure;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.workloads.QuadraticProblem;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata replay}: compares policies on task times recorded from a real fleet. Worker i's k-th
 * task takes its k-th recorded duration whatever the policy, so policies are compared on the same
 * luck; {@code --when-exhausted} decides what happens when a policy asks a worker for more tasks
 * than the log holds. The oracle's "true" means are the log's own per-worker means, known only in
 * hindsight, which every report says.
 */
@Command(
        name = "replay",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Replay a recorded timing log (CSV or JSON Lines), or a live deployment's timings topic "
                    + "(--from-topic), and compare allocation policies on it.",
            "Writes summary.csv, series.csv, runs.csv, run.txt and charts into --out."
        })
public final class ReplayCommand extends GuardedCommand {
    private static final String HINDSIGHT = "the log's per-worker means over the whole log (hindsight oracle)";
    private static final int REJECTS_SHOWN = 3;

    @Option(
            names = "--log",
            paramLabel = "FILE",
            description = "The timing log: .csv with a header naming worker and duration columns, "
                    + "or .jsonl/.ndjson/.json with one object per line. Give --log or --from-topic.")
    Path log;

    @Option(
            names = "--from-topic",
            description = {
                "Replay a live deployment's timings topic instead of --log: it is exported as 'ata "
                        + "export-timings' does (read_committed, beginning to current end) and replayed like a log.",
                "Needs --bootstrap-servers and --schema-registry-url; --job keeps one job's timings."
            })
    boolean fromTopic;

    @Option(names = "--job", paramLabel = "NAME", description = "With --from-topic: replay this job's timings only.")
    String job;

    @Option(
            names = "--time-unit",
            paramLabel = "UNIT",
            description = "The unit of the log's durations, named in the charts and tables "
                    + "(default: ms with --from-topic, whose durations are milliseconds; else 'time units').")
    String timeUnit;

    @Mixin
    KafkaOptions kafka;

    /** What was replayed, for the reports, when it was not a file the user gave. */
    private String logSource;

    @Option(
            names = "--log-format",
            paramLabel = "csv|jsonl",
            converter = OptionValues.LogFormat.class,
            description = "The log's format, if its file name does not end in .csv, .jsonl, .ndjson or .json.")
    TimingLogFormat logFormat;

    @Option(
            names = "--rounds",
            paramLabel = "R",
            description =
                    "Rounds to replay per policy and seed (default: the log's task count divided by the batch, at least 1).")
    Long rounds;

    @Option(
            names = "--when-exhausted",
            paramLabel = "cycle|bootstrap|stop",
            defaultValue = "cycle",
            converter = OptionValues.Exhaustion.class,
            description = {
                "When a worker has used all its recorded durations (default: ${DEFAULT-VALUE}):",
                "cycle: start its sequence again; bootstrap: draw from its durations at random;",
                "stop: end that policy's run at its last complete round."
            })
    ExhaustionMode whenExhausted;

    @Option(
            names = "--skip-invalid",
            description = "Skip malformed log lines (reported on stderr) instead of stopping at the first one.")
    boolean skipInvalid;

    @Mixin
    ExperimentOptions common;

    /** Replays --log, or --from-topic exported to a temporary log first. */
    @Override
    int execute() throws IOException {
        common.logging.apply();
        if (fromTopic && log != null) {
            throw common.usageError("--log and --from-topic are mutually exclusive: give one of them");
        }
        if (!fromTopic) {
            if (log == null) {
                throw common.usageError("Missing required option: '--log=FILE' (or --from-topic)");
            }
            if (job != null || kafka.anyGiven()) {
                throw common.usageError("--job, --bootstrap-servers, --command-config, --schema-registry-url and "
                        + "--topic-prefix apply to --from-topic only");
            }
            return replay();
        }
        if (logFormat != null) {
            throw common.usageError("--log-format applies to --log only");
        }
        common.validate();
        String bootstrap = kafka.bootstrapServers();
        String prefix = kafka.prefix();
        SchemaRegistryClient registry = kafka.requireRegistry();
        kafka.topicNames(); // a clear message if the cluster cannot be reached
        TimingExport.Result exported =
                TimingExport.read(kafka.clientProperties(), registry, prefix, job, TimingExport.DEFAULT_TIMEOUT);
        ExportTimingsCommand.report(
                spec.commandLine().getErr(), spec.commandLine().getErr(), exported, prefix, job, null);
        if (exported.records().isEmpty()) {
            throw new RunFailure("nothing to replay: no timings" + (job == null ? "" : " of job " + job) + " in "
                    + prefix + "timings on " + bootstrap);
        }
        Path temp = Files.createTempFile("ata-timings-", ".csv");
        try {
            TimingExport.write(temp, TimingLogFormat.CSV, exported.records());
            log = temp;
            logFormat = TimingLogFormat.CSV;
            logSource = "topic " + prefix + "timings on " + bootstrap + (job == null ? "" : ", job " + job);
            return replay();
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private int replay() {
        common.validate();
        if (rounds != null) {
            common.requirePositive("--rounds", rounds);
        }
        List<String> notes = new ArrayList<>();
        TimingLog timingLog = readLog(notes);
        double[] means = timingLog.means();
        double[][] durations = durationsPerWorker(timingLog);
        long tasks = Arrays.stream(durations).mapToLong(d -> d.length).sum();
        long replayRounds = rounds != null ? rounds : Math.max(1, tasks / common.batch);
        AtaConstants constants = AtaConstants.choose(
                common,
                () -> SubExponentialConstants.ofSamples(durations, means),
                "log",
                "psi_1 norm of each worker's recorded durations around its mean in the log");
        Queue<TraceDurations> sources = new ConcurrentLinkedQueue<>();
        Experiment.Setup setup = common.setup(
                constants,
                means,
                replayRounds,
                seed -> {
                    TraceDurations source = new TraceDurations(timingLog, whenExhausted, seed);
                    sources.add(source);
                    return source;
                },
                QuadraticProblem.paper());

        notes.add("fta, proportional, the proxy regret and the experiments constants use " + HINDSIGHT
                + ": no live policy could know these means in advance");
        int status = new ExperimentRunner(
                        spec.qualifiedName(),
                        spec.commandLine().getOut(),
                        spec.commandLine().getErr())
                .run(
                        setup,
                        () -> runInfo(timingLog, tasks, replayRounds, constants, withReuseNote(notes, sources)),
                        common.out.path(),
                        !common.noCharts);
        reuseNote(sources).ifPresent(note -> printNote(spec.commandLine().getErr(), note));
        return status;
    }

    /**
     * Reads the log strictly (first bad line is an error, with a hint) or, with --skip-invalid,
     * leniently, reporting how many lines were skipped and the first few reasons.
     */
    private TimingLog readLog(List<String> notes) {
        TimingLogFormat format = logFormat;
        if (format == null) {
            try {
                format = TimingLogFormat.ofPath(log);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + " with --log-format csv|jsonl", e);
            }
        }
        if (!skipInvalid) {
            try {
                return TimingLogReader.read(log, format);
            } catch (TimingLogFormatException e) {
                if (e.line() > 0) {
                    throw new IllegalArgumentException(
                            e.getMessage() + " (use --skip-invalid to skip malformed lines)", e);
                }
                throw e;
            }
        }
        TimingLogReader.ReadResult result = TimingLogReader.read(log, format, true);
        if (result.rejectedCount() > 0) {
            PrintWriter err = spec.commandLine().getErr();
            String skipped = "skipped " + result.rejectedCount() + " invalid line"
                    + (result.rejectedCount() == 1 ? "" : "s") + " of " + log;
            err.println(spec.qualifiedName() + ": warning: " + skipped
                    + (result.rejectedCount() > REJECTS_SHOWN ? "; the first " + REJECTS_SHOWN + ":" : ":"));
            List<TimingLogReader.Rejected> first = result.rejected()
                    .subList(0, Math.min(REJECTS_SHOWN, result.rejected().size()));
            first.forEach(r -> err.println("  " + r));
            err.flush();
            notes.add(skipped + " (--skip-invalid); first: " + first.get(0));
        }
        return result.log();
    }

    /** Each worker's recorded durations; a replay needs at least one per worker. */
    private double[][] durationsPerWorker(TimingLog timingLog) {
        double[][] durations = new double[timingLog.workerCount()][];
        for (int i = 0; i < durations.length; i++) {
            durations[i] = timingLog.durations(i);
            if (durations[i].length == 0) {
                throw new IllegalArgumentException(
                        "timing log " + log + ": worker '" + timingLog.workerId(i)
                                + "' has no usable duration (all its records were cancelled); a replay needs at least one per worker");
            }
        }
        return durations;
    }

    private String prefixTimings() {
        return kafka.topics().timings().name() + (job == null ? "" : " (job " + job + ")");
    }

    private static List<String> withReuseNote(List<String> notes, Queue<TraceDurations> sources) {
        List<String> all = new ArrayList<>(notes);
        reuseNote(sources).ifPresent(all::add);
        return all;
    }

    /** Under cycle or bootstrap, how many durations were reused because the log ran out. */
    private static Optional<String> reuseNote(Queue<TraceDurations> sources) {
        long extra = sources.stream().mapToLong(TraceDurations::extraDurations).sum();
        long runs = sources.stream().filter(s -> s.extraDurations() > 0).count();
        if (extra == 0) {
            return Optional.empty();
        }
        ExhaustionMode mode = sources.peek().mode();
        return Optional.of(String.format(
                Locale.ROOT,
                "%d durations were reused (%s) in %d of %d policy runs, because those policies gave some workers more "
                        + "tasks than the log holds for them; --when-exhausted stop never reuses",
                extra,
                mode.label(),
                runs,
                sources.size()));
    }

    private void printNote(PrintWriter err, String note) {
        err.println(spec.qualifiedName() + ": note: " + note);
        err.flush();
    }

    private RunInfo runInfo(
            TimingLog timingLog, long tasks, long replayRounds, AtaConstants constants, List<String> notes) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("command", "replay");
        settings.put(
                "log",
                logSource != null ? logSource : log.toAbsolutePath().normalize().toString());
        settings.put(
                "log records",
                String.format(
                        Locale.ROOT,
                        "%d (%d cancelled, not used), %d usable durations",
                        timingLog.recordCount(),
                        timingLog.cancelledCount(),
                        tasks));
        settings.put("workers", Integer.toString(timingLog.workerCount()));
        settings.put("batch", Integer.toString(common.batch));
        settings.put("rounds", replayRounds + (rounds == null ? " (the log's " + tasks + " durations / batch)" : ""));
        settings.put("when exhausted", whenExhausted.label());
        common.describeSeedsInto(settings);
        settings.put("policies", String.join(",", common.policyNames()));
        constants.describeInto(settings);
        settings.put("true means", HINDSIGHT);
        settings.put(
                "problem",
                "paper's quadratic trained alongside: dimension " + QuadraticProblem.DEFAULT_DIMENSION
                        + ", SGD step " + RunInfo.number(QuadraticProblem.DEFAULT_STEP) + ", gradient noise "
                        + RunInfo.number(QuadraticProblem.DEFAULT_NOISE));
        settings.put("threads", Integer.toString(common.threads));
        settings.put("charts", common.noCharts ? "no" : "yes");
        settings.put("output", common.out.path().toAbsolutePath().normalize().toString());

        double[] means = timingLog.means();
        List<String> workerLines = new ArrayList<>();
        for (int i = 0; i < timingLog.workerCount(); i++) {
            workerLines.add(timingLog.workerId(i) + ": " + timingLog.durationCount(i) + " recorded durations, mean "
                    + RunInfo.number(means[i]));
        }
        String title = String.format(
                Locale.ROOT,
                "ata replay: %s, n=%d, B=%d, %d rounds, %s, %s",
                logSource != null ? prefixTimings() : log.getFileName(),
                timingLog.workerCount(),
                common.batch,
                replayRounds,
                whenExhausted.label(),
                common.seedLabel());
        return new RunInfo(
                common.invocation(),
                title,
                settings,
                common.constants,
                "the log's per-worker means (hindsight oracle)",
                notes,
                workerLines,
                timeUnit != null ? timeUnit : fromTopic ? "ms" : null);
    }
}
