package io.ata.cli;

import io.ata.lab.export.TimingExport;
import io.ata.lab.timinglog.TimingLogFormat;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code ata export-timings}: the timings topic as a timing log for {@code ata replay --log}.
 */
@Command(
        name = "export-timings",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Export a live deployment's timings topic as a timing log for 'ata replay --log'.",
            "Reads the timings topic (read_committed) from its beginning to its current end.",
            "Columns: worker, duration (compute ms), round, task, timestamp (end, epoch ms), status (completed: "
                    + "accepted into its round's batch; late: finished but not used; cancelled: stopped part-way)."
        })
public final class ExportTimingsCommand extends ClusterCommand {

    @Option(
            names = "--job",
            paramLabel = "NAME",
            description = "Export this job's timings only (default: every job's).")
    String job;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            defaultValue = "timings.csv",
            description = "The log to write: .csv, or .jsonl/.ndjson/.json for JSON Lines (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(
            names = "--log-format",
            paramLabel = "csv|jsonl",
            converter = OptionValues.LogFormat.class,
            description = "The log's format, if --out does not end in .csv, .jsonl, .ndjson or .json.")
    TimingLogFormat logFormat;

    @Option(
            names = "--timeout",
            paramLabel = "TIME",
            defaultValue = "60s",
            converter = OptionValues.TimeSpan.class,
            description = "How long reading the topics may take (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Mixin
    LogOptions logging;

    @Override
    int execute() {
        kafka.bootstrapServers();
        String prefix = kafka.prefix();
        TimingLogFormat format = format(spec, out, logFormat);
        logging.apply();
        SchemaRegistryClient registry = kafka.requireRegistry();
        kafka.topicNames(); // a clear message if the cluster cannot be reached
        TimingExport.Result result = TimingExport.read(kafka.clientProperties(), registry, prefix, job, timeout);
        TimingExport.write(out, format, result.records());
        report(spec.commandLine().getOut(), spec.commandLine().getErr(), result, prefix, job, out);
        return 0;
    }

    /** The format of {@code out}: given, or from its extension (a usage error if neither). */
    static TimingLogFormat format(CommandSpec spec, Path out, TimingLogFormat given) {
        if (given != null) {
            return given;
        }
        try {
            return TimingLogFormat.ofPath(out);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--out': " + e.getMessage()
                            + "; name the file .csv or .jsonl, or give --log-format csv|jsonl");
        }
    }

    /** One line on what was exported (to {@code out}), and warnings about what was not (to {@code err}). */
    static void report(
            PrintWriter summary, PrintWriter err, TimingExport.Result r, String prefix, String job, Path out) {
        String name = "ata " + (out == null ? "replay" : "export-timings");
        if (r.undecodable() > 0) {
            err.printf(
                    Locale.ROOT,
                    "%s: warning: skipped %d record(s) of %stimings that do not decode%n",
                    name,
                    r.undecodable(),
                    prefix);
        }
        if (r.records().isEmpty()) {
            err.printf(
                    Locale.ROOT,
                    "%s: warning: no timings%s in %stimings%n",
                    name,
                    job == null ? "" : " of job " + job,
                    prefix);
        }
        err.flush();
        summary.printf(
                Locale.ROOT,
                "%s: %d timing records (%d completed, %d late, %d cancelled) of %d worker(s), job(s) %s%s%n",
                name,
                r.records().size(),
                r.count(TimingRecord.Status.COMPLETED),
                r.count(TimingRecord.Status.LATE),
                r.count(TimingRecord.Status.CANCELLED),
                r.workers(),
                r.jobs().isEmpty() ? "-" : String.join(", ", r.jobs()),
                out == null ? "" : " written to " + out);
        summary.flush();
    }
}
