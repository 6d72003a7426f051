package io.ata.cli;

import io.ata.bench.fleet.FleetBench;
import io.ata.bench.fleet.FleetRestore;
import io.ata.bench.fleet.VirtualFleet;
import io.ata.broker.BrokerSettings;
import io.ata.lab.report.ChartFiles;
import io.ata.lab.report.LineChart;
import io.ata.lab.report.PolicyColors;
import io.ata.lab.report.Progress;
import io.ata.lab.sim.Scenario;
import io.ata.lab.sim.ScenarioFile;
import io.ata.local.LocalDeployment;
import io.ata.platform.ops.ProcessMetrics;
import io.ata.schemas.Topics;
import io.ata.workloads.time.TimeSchedule;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata bench-fleet}: the broker under fleets of virtual agents and many concurrent jobs
 * ({@link FleetBench}): one process behaves as N agents on real Kafka clients, so fleet sizes a
 * machine cannot host as one JVM per agent measure the broker, not the machine.
 */
@Command(
        name = "bench-fleet",
        mixinStandardHelpOptions = true,
        description = {
            "Benchmark the broker at fleet scale: N virtual agents in one process (real Kafka clients and records,"
                    + " distinct worker ids, heartbeats with partitions, transactional results, no compute) and J"
                    + " concurrent jobs of the real trainer on the quadratic problem.",
            "For every (agents, jobs): control overhead per round p50/p90/p99 (trainer's close of round k committed"
                    + " -> last assignment of round k+1 at its agent, as bench-live), rounds per second, the broker's"
                    + " CPU ms per round (its threads' CPU time), heap, state-store bytes and, with two instances,"
                    + " each one's share of the rounds.",
            "Writes fleet.csv and, where a sweep has two or more points, overhead-by-agents.png and"
                    + " overhead-by-jobs.png into --out."
        })
public final class FleetBenchCommand extends LiveSystemBenchCommand {

    static final String CSV_HEADER = "agents,jobs,instances,batch,clients,rounds,seconds,p50_ms,p90_ms,p99_ms,max_ms,"
            + "rounds_per_s,cpu_ms_per_round,heap_mb,state_mb,jobs_progressed,complete,instance_rounds,"
            + "tasks_completed,tasks_cancelled,dead_letters,failed_transactions";

    @Option(
            names = "--agents",
            paramLabel = "N",
            split = ",",
            defaultValue = "64,256",
            description = "Fleet sizes, virtual agents (default: ${DEFAULT-VALUE}).")
    int[] agents;

    @Option(
            names = "--jobs",
            paramLabel = "N",
            split = ",",
            defaultValue = "1",
            description = "Concurrent jobs, each with its own trainer (default: ${DEFAULT-VALUE}).")
    int[] jobs;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "30",
            description = "Measured rounds per job (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--warmup",
            paramLabel = "N",
            defaultValue = "10",
            description = "Unmeasured rounds per job first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(
            names = "--instances",
            paramLabel = "N",
            defaultValue = "1",
            description = "Broker instances, one application (default: ${DEFAULT-VALUE}).")
    int instances;

    @Option(
            names = "--policy",
            paramLabel = "NAME",
            defaultValue = "uta",
            description = "Every job's policy (default: ${DEFAULT-VALUE}: with B = agents every agent gets a task"
                    + " a round, the full fan-out).")
    String policy;

    @Option(
            names = "--batch",
            paramLabel = "B",
            defaultValue = "0",
            description = "Every job's B; 0: agents / jobs, at least 1, so the fleet's work per round of all jobs"
                    + " stays the same as jobs are added (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(
            names = "--agents-per-client",
            paramLabel = "N",
            defaultValue = "64",
            description = "Virtual agents sharing one consumer-group member and one transactional producer"
                    + " (default: ${DEFAULT-VALUE}).")
    int agentsPerClient;

    @Option(
            names = "--heartbeat-interval",
            paramLabel = "TIME",
            defaultValue = "1s",
            converter = OptionValues.TimeSpan.class,
            description = "How often each virtual agent heartbeats (default: ${DEFAULT-VALUE}, a real agent's): the"
                    + " broker takes agents / interval heartbeats a second, each through its exactly-once membership"
                    + " path. The broker's liveness timeout is 4 intervals, at least its default 10 s.")
    Duration heartbeatInterval;

    @Option(
            names = "--scenario",
            paramLabel = "FILE",
            description = "Task times from this scenario file's workers (agent i follows worker i modulo their count;"
                    + " changes, hangs, joins and leaves included), in ms times --time-scale. Without it every task"
                    + " takes no time.")
    Path scenario;

    @Option(
            names = "--time-scale",
            paramLabel = "X",
            defaultValue = "1",
            description = "Factor on the scenario's times (default: ${DEFAULT-VALUE}).")
    double timeScale;

    @Option(
            names = "--timeout",
            paramLabel = "MINUTES",
            defaultValue = "20",
            description = "Longest time per load; a load cut short reports what closed (default: ${DEFAULT-VALUE}).")
    int timeoutMinutes;

    @Option(
            names = "--restore",
            paramLabel = "JOBS",
            defaultValue = "0",
            description =
                    "Also measure the restore after kill -9: the broker in a process of its own holding JOBS jobs'"
                            + " state (the first --agents value's fleet), killed with SIGKILL and started again at once"
                            + " (default: ${DEFAULT-VALUE}: not measured).")
    int restoreJobs;

    @Option(
            names = "--only",
            paramLabel = "WHAT",
            description = "loads (the table) or restore (only the kill -9 restore of --restore); default: both.")
    String only;

    @Mixin
    OutputDirectory out;

    @Mixin
    KafkaOptions kafka;

    @Override
    int bench() throws Exception {
        if (Arrays.stream(agents).anyMatch(n -> n < 1) || Arrays.stream(jobs).anyMatch(n -> n < 1)) {
            throw kafka.usageError("--agents and --jobs take whole numbers >= 1");
        }
        if (only != null && !only.equals("loads") && !only.equals("restore")) {
            throw kafka.usageError("--only must be loads or restore, was '" + only + "'");
        }
        if (restoreJobs < 0 || "restore".equals(only) && restoreJobs == 0) {
            throw kafka.usageError("--restore takes a number of jobs >= 1 (with --only restore it is needed)");
        }
        boolean loads = !"restore".equals(only);
        boolean restore = restoreJobs > 0 && !"loads".equals(only);
        List<TimeSchedule> schedules = List.of();
        if (scenario != null) {
            try {
                Scenario s = ScenarioFile.load(scenario);
                schedules = Arrays.asList(s.schedules());
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw kafka.usageError("Invalid value for option '--scenario': " + e.getMessage());
            }
        }
        FleetBench.Settings settings;
        try {
            settings = new FleetBench.Settings(
                    rounds,
                    warmup,
                    instances,
                    policy,
                    batch,
                    VirtualFleet.Settings.of(1)
                            .withAgentsPerClient(agentsPerClient)
                            .withHeartbeatInterval(heartbeatInterval)
                            .withSchedules(schedules, scenario == null ? 0 : timeScale),
                    Duration.ofMinutes(timeoutMinutes));
        } catch (IllegalArgumentException e) {
            throw kafka.usageError(e.getMessage());
        }
        Files.createDirectories(out.path());
        MeterRegistry meters = ProcessMetrics.newRegistry();
        // the broker finds a worker dead after 4 missed heartbeats at the least (its default 10 s otherwise)
        Duration liveness = heartbeatInterval.multipliedBy(4).compareTo(Duration.ofSeconds(10)) > 0
                ? heartbeatInterval.multipliedBy(4)
                : Duration.ofSeconds(10);
        BrokerSettings brokerSettings = BrokerSettings.defaults().withLiveness(liveness, Duration.ofSeconds(1));
        Function<Topics, LocalDeployment> deployments;
        String where;
        if (!kafka.clusterNamed()) {
            deployments = t -> LocalDeployment.embedded(t, brokerSettings, meters);
            where = "embedded KRaft broker, a fresh one per load";
        } else {
            kafka.topicNames(); // reachable, or a clear error
            deployments = t -> LocalDeployment.builder(t)
                    .existingCluster(kafka.bootstrapServers(), kafka.clientProperties())
                    .brokerSettings(brokerSettings)
                    .meters(meters)
                    .start();
            where = "Kafka at " + kafka.bootstrapServers();
        }
        PrintWriter stdout = spec.commandLine().getOut();
        long total = restore ? 3L * restoreJobs : 0;
        for (int a : loads ? agents : new int[0]) {
            for (int j : jobs) {
                total += (long) j * (warmup + rounds);
            }
        }
        List<FleetBench.Result> results = new ArrayList<>();
        FleetRestore.Result restored = null;
        try (Progress progress =
                Progress.start("bench-fleet", total, spec.commandLine().getErr())) {
            if (restore) {
                restored = new FleetRestore(deployments, progress)
                        .run(agents[0], restoreJobs, Duration.ofMinutes(timeoutMinutes));
            }
            int[] fleets = loads ? agents : new int[0];
            FleetBench bench = new FleetBench(deployments, progress);
            stdout.printf(
                    Locale.ROOT,
                    "Virtual fleet: control overhead per round (close of round k committed -> last assignment of round"
                            + " k+1 at its agent), rounds/s and the broker's CPU per round%n(%s; policy %s, %s;"
                            + " %d measured rounds per job after %d; %d agents per Kafka client; heartbeats every %s;"
                            + " %d broker instance(s); broker CPU: its threads' CPU time by ThreadMXBean)%n",
                    where,
                    policy,
                    batch == 0 ? "B = agents / jobs" : "B = " + batch,
                    rounds,
                    warmup,
                    agentsPerClient,
                    heartbeatInterval.toMillis() + " ms",
                    instances);
            stdout.printf(
                    Locale.ROOT,
                    "%-7s %-6s %-8s %8s %8s %8s %13s %17s%n",
                    "agents",
                    "jobs",
                    "rounds",
                    "p50_ms",
                    "p90_ms",
                    "p99_ms",
                    "rounds_per_s",
                    "cpu_ms_per_round");
            stdout.flush();
            for (int a : fleets) {
                for (int j : jobs) {
                    FleetBench.Result r = bench.run(a, j, settings);
                    results.add(r);
                    stdout.printf(
                            Locale.ROOT,
                            "%-7d %-6d %-8d %8.1f %8.1f %8.1f %13.1f %17.2f%n",
                            r.agents(),
                            r.jobs(),
                            r.rounds(),
                            r.overheadMs(0.5),
                            r.overheadMs(0.9),
                            r.overheadMs(0.99),
                            r.roundsPerSecond(),
                            r.cpuMsPerRound());
                    stdout.flush();
                }
            }
        }
        if (!results.isEmpty()) {
            stdout.println();
            stdout.printf(
                    Locale.ROOT,
                    "%-7s %-6s %-5s %-8s %9s %9s %8s %-10s %-16s %s%n",
                    "agents",
                    "jobs",
                    "B",
                    "clients",
                    "heap_mb",
                    "state_mb",
                    "jobs_ok",
                    "complete",
                    "instance_share",
                    "fleet");
            for (FleetBench.Result r : results) {
                stdout.printf(
                        Locale.ROOT,
                        "%-7d %-6d %-5d %-8d %9.0f %9.1f %8s %-10s %-16s %d tasks, %d cancelled, %d dead letters, %d failed"
                                + " transactions%n",
                        r.agents(),
                        r.jobs(),
                        r.batch(),
                        r.clients(),
                        r.heapBytes() / 1e6,
                        r.stateBytes() / 1e6,
                        r.jobsProgressed() + "/" + r.jobs(),
                        r.complete() ? "yes" : "cut short",
                        shares(r),
                        r.fleet().tasksCompleted(),
                        r.fleet().tasksCancelled(),
                        r.fleet().deadLetters(),
                        r.fleet().failedTransactions());
            }
        }
        if (restored != null) {
            stdout.println();
            stdout.printf(
                    Locale.ROOT,
                    "Restore after kill -9 of the broker (its own process) holding %d jobs' state, %d virtual agents,"
                            + " %d rounds closed before: new process RUNNING %.1f s, first round closed %.1f s, every"
                            + " job closed a round %.1f s after the kill (%d/%d jobs progressed)%n",
                    restored.jobs(),
                    restored.agents(),
                    restored.roundsBefore(),
                    restored.runningSeconds(),
                    restored.firstRoundSeconds(),
                    restored.allJobsSeconds(),
                    restored.jobsProgressed(),
                    restored.jobs());
            writeRestoreCsv(out.path().resolve("restore.csv"), restored);
        }
        if (results.isEmpty()) {
            stdout.println();
            stdout.println("outputs in " + out.path() + ": restore.csv");
            return 0;
        }
        List<String> written = new ArrayList<>(List.of("fleet.csv"));
        if (restored != null) {
            written.add("restore.csv");
        }
        writeCsv(out.path().resolve("fleet.csv"), results);
        if (chart(
                results,
                FleetBench.Result::agents,
                FleetBench.Result::jobs,
                "agents",
                "jobs",
                "overhead-by-agents.png")) {
            written.add("overhead-by-agents.png");
        }
        if (chart(
                results,
                FleetBench.Result::jobs,
                FleetBench.Result::agents,
                "jobs",
                "agents",
                "overhead-by-jobs.png")) {
            written.add("overhead-by-jobs.png");
        }
        stdout.println();
        stdout.println("outputs in " + out.path() + ": " + String.join(", ", written));
        return 0;
    }

    /** Each instance's share of the measured rounds, e.g. {@code 0.48/0.52}; {@code -} with one. */
    private static String shares(FleetBench.Result r) {
        long[] by = r.roundsByInstance();
        if (by.length < 2) {
            return "-";
        }
        long sum = Arrays.stream(by).sum();
        return Arrays.stream(by)
                .mapToObj(n -> String.format(Locale.ROOT, "%.2f", sum == 0 ? 0.0 : (double) n / sum))
                .collect(Collectors.joining("/"));
    }

    /**
     * Overhead p50/p90/p99 against {@code x} (log scale), one set of curves per value of
     * {@code other}; written only where some set has two points or more.
     */
    private boolean chart(
            List<FleetBench.Result> results,
            ToIntFunction<FleetBench.Result> x,
            ToIntFunction<FleetBench.Result> other,
            String xName,
            String otherName,
            String file) {
        TreeMap<Integer, List<FleetBench.Result>> groups = new TreeMap<>();
        results.forEach(r -> groups.computeIfAbsent(other.applyAsInt(r), k -> new ArrayList<>())
                .add(r));
        List<LineChart.Curve> curves = new ArrayList<>();
        groups.forEach((value, rs) -> {
            if (rs.size() < 2) {
                return;
            }
            List<FleetBench.Result> sorted = rs.stream()
                    .sorted((p, q) -> Integer.compare(x.applyAsInt(p), x.applyAsInt(q)))
                    .toList();
            double[] xs = sorted.stream().mapToDouble(x::applyAsInt).toArray();
            for (double q : new double[] {0.5, 0.9, 0.99}) {
                curves.add(new LineChart.Curve(
                        String.format(Locale.ROOT, "p%d, %d %s", Math.round(q * 100), value, otherName),
                        xs,
                        sorted.stream().mapToDouble(r -> r.overheadMs(q)).toArray()));
            }
        });
        if (curves.isEmpty()) {
            return false;
        }
        ChartFiles.png(
                LineChart.create(
                        "Control overhead per round against " + xName + " (virtual fleet, exactly-once)",
                        new LineChart.Axis(xName, true),
                        new LineChart.Axis(
                                "close of round k committed -> last assignment of k+1 at its agent (ms)", false),
                        curves,
                        new PolicyColors(
                                curves.stream().map(LineChart.Curve::name).toList())),
                out.path().resolve(file),
                900,
                560);
        return true;
    }

    private static void writeRestoreCsv(Path file, FleetRestore.Result r) throws IOException {
        Files.write(
                file,
                List.of(
                        "agents,jobs,rounds_before,running_s,first_round_s,all_jobs_s,jobs_progressed",
                        String.format(
                                Locale.ROOT,
                                "%d,%d,%d,%.3f,%.3f,%.3f,%d",
                                r.agents(),
                                r.jobs(),
                                r.roundsBefore(),
                                r.runningSeconds(),
                                r.firstRoundSeconds(),
                                r.allJobsSeconds(),
                                r.jobsProgressed())),
                StandardCharsets.UTF_8);
    }

    private static void writeCsv(Path file, List<FleetBench.Result> results) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(CSV_HEADER);
        for (FleetBench.Result r : results) {
            double[] ms = r.overheadMs();
            lines.add(String.format(
                    Locale.ROOT,
                    "%d,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.1f,%.3f,%d,%b,%s,%d,%d,%d,%d",
                    r.agents(),
                    r.jobs(),
                    r.instances(),
                    r.batch(),
                    r.clients(),
                    r.rounds(),
                    r.seconds(),
                    r.overheadMs(0.5),
                    r.overheadMs(0.9),
                    r.overheadMs(0.99),
                    ms.length == 0 ? Double.NaN : ms[ms.length - 1],
                    r.roundsPerSecond(),
                    r.cpuMsPerRound(),
                    r.heapBytes() / 1e6,
                    r.stateBytes() / 1e6,
                    r.jobsProgressed(),
                    r.complete(),
                    Arrays.stream(r.roundsByInstance()).mapToObj(Long::toString).collect(Collectors.joining("/")),
                    r.fleet().tasksCompleted(),
                    r.fleet().tasksCancelled(),
                    r.fleet().deadLetters(),
                    r.fleet().failedTransactions()));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
