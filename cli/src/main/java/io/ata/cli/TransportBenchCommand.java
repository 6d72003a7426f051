package io.ata.cli;

import io.ata.bench.Pace;
import io.ata.bench.TransportBench;
import io.ata.bench.TransportResult;
import io.ata.bench.TransportRun;
import io.ata.lab.report.Progress;
import io.ata.local.kafka.EmbeddedKafka;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ata bench-transport}: how fast one task's gradient travels from an agent to the trainer
 * through the system's exactly-once result path, next to Kafka's own clients moving the same bytes
 * in the same run, plain and with a transaction per task ({@link TransportBench}). On an embedded
 * KRaft broker with
 * Kafka's default settings unless {@code --bootstrap-servers} names a cluster.
 */
@Command(
        name = "bench-transport",
        mixinStandardHelpOptions = true,
        description = {
            "Benchmark gradient transport per task (agent publish -> trainer read, exactly-once) against a plain Kafka "
                    + "producer/consumer pair moving the same bytes on the same broker, and against Kafka's clients "
                    + "with a transaction per task (the floor of any exactly-once path).",
            "Writes transport.csv (the figures per size) and transport-tasks.csv (every measured task's latency) into "
                    + "--out."
        })
public final class TransportBenchCommand extends ClusterBenchCommand {
    /**
     * The figures the transports are compared on, in the order of the printed table and of the CSV:
     * one list, so that the table, its headings and the CSV cannot disagree.
     */
    private static final List<Figure> FIGURES = List.of(
            new Figure("ata_median_latency_ms", 3, "ata p50 ms", 11, 1, TransportResult::ataMedianLatencyMs),
            new Figure("kafka_eos_median_latency_ms", 3, "eos p50 ms", 11, 1, TransportResult::eosMedianLatencyMs),
            new Figure("plain_median_latency_ms", 3, "plain p50 ms", 13, 1, TransportResult::plainMedianLatencyMs),
            new Figure("ata_throughput_mb_s", 6, "ata MB/s", 9, 1, TransportResult::ataThroughputMbPerS),
            new Figure("kafka_eos_throughput_mb_s", 6, "eos MB/s", 9, 1, TransportResult::eosThroughputMbPerS),
            new Figure("plain_throughput_mb_s", 6, "plain MB/s", 11, 1, TransportResult::plainThroughputMbPerS),
            new Figure("throughput_ratio", 6, "ata", 6, 2, TransportResult::throughputRatio),
            new Figure("kafka_eos_throughput_ratio", 6, "eos", 6, 2, TransportResult::eosThroughputRatio));

    /** The CSV's columns. */
    static final String CSV_HEADER = "pace,parameters,bytes_per_task,records_per_task,tasks,"
            + FIGURES.stream().map(Figure::column).collect(Collectors.joining(","));

    /** The columns of the per-task CSV. */
    static final String TASKS_CSV_HEADER = "pace,parameters,transport,run,task,latency_ms";

    @Option(
            names = "--sizes",
            paramLabel = "N",
            split = ",",
            defaultValue = "0.1M,1M,10M",
            converter = ParameterCount.class,
            description = "Gradient sizes in float32 parameters; k and M suffixes allowed (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(
            names = "--tasks",
            paramLabel = "N",
            defaultValue = "40",
            description = "Tasks per measured run, sent one after another (default: ${DEFAULT-VALUE}).")
    int tasks;

    @Option(
            names = "--pace",
            paramLabel = "PACE",
            defaultValue = "stream",
            completionCandidates = PaceNames.class,
            description = "How the sender hands tasks over: stream (each as soon as the previous one was handed "
                    + "over, as an agent whose tasks compute faster than they travel: throughput) or serial (each "
                    + "once the previous one arrived: one task's latency) (default: ${DEFAULT-VALUE}).")
    String pace;

    @Option(
            names = "--repeats",
            paramLabel = "N",
            defaultValue = "3",
            description = "Measured runs per size and transport, the three taking turns (default: ${DEFAULT-VALUE}).")
    int repeats;

    @Option(
            names = "--warmup",
            paramLabel = "N",
            defaultValue = "40",
            description = "Unmeasured tasks per size and transport first: a run's worth, so that no measured run is"
                    + " a cold JVM's (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Override
    int bench() throws Exception {
        TransportBench.Settings settings;
        try {
            settings = new TransportBench.Settings(sizes, tasks, repeats, warmup, Pace.of(pace));
        } catch (IllegalArgumentException e) {
            throw kafka.usageError(e.getMessage());
        }
        Files.createDirectories(out.path());
        PrintWriter stdout = spec.commandLine().getOut();
        String prefix = (kafka.topicPrefix == null ? "ata." : kafka.topicPrefix) + "bench-transport-"
                + System.currentTimeMillis() + ".";
        EmbeddedKafka embedded = null;
        SchemaRegistryClient registry;
        Map<String, Object> client;
        String where;
        if (!kafka.clusterNamed()) {
            embedded = EmbeddedKafka.builder().start();
            client = embedded.clientConfig();
            registry = new EmbeddedSchemaRegistry();
            where = "embedded KRaft broker, default settings";
        } else {
            where = reachableCluster();
            client = kafka.clientProperties();
            registry = kafka.registryUrl().map(kafka::registry).orElseGet(EmbeddedSchemaRegistry::new);
        }
        int largest = sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
        List<TransportResult> results;
        try (TransportBench bench = new TransportBench(client, registry, prefix, largest);
                Progress progress = Progress.start(
                        "bench-transport",
                        settings.totalTasks(),
                        "tasks",
                        spec.commandLine().getErr())) {
            stdout.println("Gradient transport per task, agent publish -> trainer read: the exactly-once result path"
                    + " (ata), Kafka's clients with a transaction per task (eos: the floor of any exactly-once path)"
                    + " and plain Kafka (same bytes, same broker, same run); ratios are of plain Kafka's MB/s");
            stdout.printf(
                    Locale.ROOT,
                    "(%s; %d tasks x %d runs per size and transport, one after another at pace %s; records of at"
                            + " most %d bytes)%n",
                    where,
                    tasks,
                    repeats,
                    settings.pace().label(),
                    Chunks.DEFAULT_CHUNK_BYTES);
            StringBuilder headings =
                    new StringBuilder(String.format(Locale.ROOT, "%-11s %9s %8s", "parameters", "MB/task", "records"));
            FIGURES.forEach(f -> headings.append(' ').append(f.headingCell()));
            stdout.println(headings);
            stdout.flush();
            results = bench.run(settings, progress, r -> {
                StringBuilder line = new StringBuilder(String.format(
                        Locale.ROOT, "%-11d %9.1f %8d", r.parameters(), r.bytesPerTask() / 1e6, r.recordsPerTask()));
                FIGURES.forEach(f -> line.append(' ').append(f.tableCell(r)));
                stdout.println(line);
                stdout.flush();
            });
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
        writeCsv(out.path().resolve("transport.csv"), settings.pace(), results);
        writeTasksCsv(out.path().resolve("transport-tasks.csv"), settings.pace(), results);
        stdout.println();
        stdout.println("outputs in " + out.path() + ": transport.csv, transport-tasks.csv");
        return 0;
    }

    private static void writeCsv(Path file, Pace pace, List<TransportResult> results) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(CSV_HEADER);
        for (TransportResult r : results) {
            StringBuilder line = new StringBuilder(String.format(
                    Locale.ROOT,
                    "%s,%d,%d,%d,%d",
                    pace.label(),
                    r.parameters(),
                    r.bytesPerTask(),
                    r.recordsPerTask(),
                    r.tasks()));
            FIGURES.forEach(f -> line.append(',').append(f.csvCell(r)));
            lines.add(line.toString());
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** Every measured task's latency, for plots. */
    private static void writeTasksCsv(Path file, Pace pace, List<TransportResult> results) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(TASKS_CSV_HEADER);
        for (TransportResult r : results) {
            for (List<TransportRun> runs : List.of(r.ata(), r.eos(), r.plain())) {
                for (int run = 0; run < runs.size(); run++) {
                    double[] latencies = runs.get(run).latenciesMs();
                    for (int task = 0; task < latencies.length; task++) {
                        lines.add(String.format(
                                Locale.ROOT,
                                "%s,%d,%s,%d,%d,%.3f",
                                pace.label(),
                                r.parameters(),
                                runs.get(run).transport(),
                                run + 1,
                                task + 1,
                                latencies[task]));
                    }
                }
            }
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /**
     * One compared figure of a size's {@link TransportResult}: its CSV column and decimals there,
     * and its table heading, width and decimals.
     */
    private record Figure(
            String column,
            int csvDecimals,
            String heading,
            int width,
            int decimals,
            ToDoubleFunction<TransportResult> value) {

        String headingCell() {
            return String.format(Locale.ROOT, "%" + width + "s", heading);
        }

        String tableCell(TransportResult r) {
            return String.format(Locale.ROOT, "%" + width + "." + decimals + "f", value.applyAsDouble(r));
        }

        String csvCell(TransportResult r) {
            return String.format(Locale.ROOT, "%." + csvDecimals + "f", value.applyAsDouble(r));
        }
    }

    /** The names {@code --pace} takes. */
    static final class PaceNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return java.util.Arrays.stream(Pace.values()).map(Pace::label).iterator();
        }
    }

    /** A count of parameters: {@code 100000}, {@code 100k}, {@code 0.1M}, {@code 10M}. */
    static final class ParameterCount implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            String t = text.trim();
            double scale = 1;
            if (t.endsWith("k") || t.endsWith("K")) {
                scale = 1e3;
            } else if (t.endsWith("M") || t.endsWith("m")) {
                scale = 1e6;
            }
            String number = scale == 1 ? t : t.substring(0, t.length() - 1);
            double value;
            try {
                value = Double.parseDouble(number) * scale;
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + text + "' is not a parameter count such as 100000, 100k or 1M");
            }
            if (value < 1 || value > Integer.MAX_VALUE / Float.BYTES || value != Math.rint(value)) {
                throw new TypeConversionException(
                        "'" + text + "' must be a whole number of parameters from 1 to " + Integer.MAX_VALUE / 4);
            }
            return (int) value;
        }
    }
}
