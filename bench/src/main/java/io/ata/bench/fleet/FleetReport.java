package io.ata.bench.fleet;

import io.ata.bench.JobsBench;
import io.ata.lab.report.ChartFiles;
import io.ata.lab.report.LineChart;
import io.ata.lab.report.PolicyColors;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * What {@code ata bench-fleet} reports: the table of control overhead, rounds per second and the
 * broker's CPU, a row as each load ends; then the loads' memory, state and fleet counts, and the
 * restore after kill -9; and the files: {@code fleet.csv}, {@code fleet-rounds.csv}, {@code restore.csv} and, where a sweep
 * has two or more points, the overhead charts against agents and against jobs.
 */
public final class FleetReport {
    /** The columns of {@code fleet.csv}. */
    public static final String CSV_HEADER =
            "agents,jobs,allocation,instances,batch,clients,rounds,seconds,p50_ms,p90_ms,p99_ms,max_ms,"
                    + "rounds_per_s,cpu_ms_per_round,cpu_ms_per_s,heap_mb,state_mb,jobs_progressed,complete,instance_rounds,"
                    + "tasks_completed,tasks_cancelled,dead_letters,failed_transactions,parked,ready_p50_ms,ready_p99_ms,"
                    + "broker_deferred,broker_reopened,broker_stale_opens,broker_backup_tasks,broker_dead_letters,"
                    + "broker_opened_lag_ms,gc_pauses,gc_ms,gc_max_ms,agents_per_partition,task_partitions,"
                    + "partitions_claimed_twice,trainers";

    /** The columns of {@code fleet-rounds.csv}: every measured round of every load. */
    public static final String ROUNDS_CSV_HEADER =
            "agents,jobs,allocation,job,round,closed_s,overhead_ms,ready_ms,assigned_ms,gc_ms";

    private final PrintWriter out;
    private final List<FleetBench.Result> results = new ArrayList<>();
    private FleetRestore.Result restored;

    /** @param out where the tables go */
    public FleetReport(PrintWriter out) {
        this.out = out;
    }

    /** What the loads measure and how ({@code where}: the Kafka they run on), and the table's header. */
    public void start(String where, FleetBench.Settings settings) {
        out.printf(
                Locale.ROOT,
                "Virtual fleet: control overhead per round (close of round k committed -> last assignment of round"
                        + " k+1 started at its agent), rounds/s and the broker's CPU per round%n(%s; policy %s, %s;"
                        + " %d measured rounds per job after %d; %d agents per Kafka client, %s; heartbeats every %s;"
                        + " %d broker instance(s), %d rounds and model partition(s); %s; broker CPU: its threads' CPU"
                        + " time by ThreadMXBean)%n",
                where,
                settings.policy(),
                settings.batch() == 0 ? "B = agents / jobs" : "B = " + settings.batch(),
                settings.rounds(),
                settings.warmup(),
                settings.fleet().agentsPerClient(),
                settings.fleet().sharesPartitions()
                        ? settings.fleet().agentsPerPartition() + " sharing each task partition"
                        : "a task partition each",
                settings.fleet().heartbeatInterval().toMillis() + " ms",
                settings.instances(),
                settings.roundsPartitionsUsed(),
                settings.trainerHost()
                        ? "the trainers in one host, reading gradients once"
                        : "each trainer reading gradients with a consumer of its own");
        out.printf(
                Locale.ROOT,
                "%-7s %-6s %-10s %-8s %8s %8s %8s %13s %17s%n",
                "agents",
                "jobs",
                "allocation",
                "rounds",
                "p50_ms",
                "p90_ms",
                "p99_ms",
                "rounds_per_s",
                "cpu_ms_per_round");
        out.flush();
    }

    /** One load's row of the table, shown at once. */
    public void add(FleetBench.Result r) {
        results.add(r);
        out.printf(
                Locale.ROOT,
                "%-7d %-6d %-10s %-8d %8.1f %8.1f %8.1f %13.1f %17.2f%n",
                r.agents(),
                r.jobs(),
                r.allocation(),
                r.rounds(),
                r.overheadMs(0.5),
                r.overheadMs(0.9),
                r.overheadMs(0.99),
                r.roundsPerSecond(),
                r.cpuMsPerRound());
        out.flush();
    }

    /** The restore after kill -9, shown by {@link #finish}. */
    public void restored(FleetRestore.Result r) {
        restored = r;
    }

    /**
     * Prints the loads' second table and the restore, writes the files into {@code dir} and names
     * them last.
     */
    public void finish(Path dir) throws IOException {
        List<String> written = new ArrayList<>();
        if (!results.isEmpty()) {
            printDetails();
            written.add("fleet.csv");
        }
        if (restored != null) {
            printRestore();
            writeRestoreCsv(dir.resolve("restore.csv"));
            written.add("restore.csv");
        }
        if (!results.isEmpty()) {
            writeCsv(dir.resolve("fleet.csv"));
            writeRoundsCsv(dir.resolve("fleet-rounds.csv"));
            written.add("fleet-rounds.csv");
            chart(FleetBench.Result::agents, FleetBench.Result::jobs, "agents", "jobs", dir)
                    .ifPresent(written::add);
            chart(FleetBench.Result::jobs, FleetBench.Result::agents, "jobs", "agents", dir)
                    .ifPresent(written::add);
        }
        out.println();
        out.println("outputs in " + dir + ": " + String.join(", ", written));
        out.flush();
    }

    private void printDetails() {
        out.println();
        out.printf(
                Locale.ROOT,
                "%-7s %-6s %-10s %-5s %-8s %14s %9s %9s %8s %-10s %-16s %s%n",
                "agents",
                "jobs",
                "allocation",
                "B",
                "clients",
                "ready_p50/p99",
                "heap_mb",
                "state_mb",
                "jobs_ok",
                "complete",
                "instance_share",
                "fleet");
        for (FleetBench.Result r : results) {
            out.printf(
                    Locale.ROOT,
                    "%-7d %-6d %-10s %-5d %-8d %14s %9.0f %9.1f %8s %-10s %-16s %d tasks, %d cancelled, %d parked,"
                            + " %d dead letters, %d failed transactions; broker: %d deferred, %d re-opened, %d stale"
                            + " opens, %d backup tasks, %d dead letters, OPENED read %.1f ms after its send (mean);"
                            + " GC of this JVM (broker, fleet, trainers, Kafka) in the measured rounds: %d pauses,"
                            + " %.0f ms, longest %.1f ms%n",
                    r.agents(),
                    r.jobs(),
                    r.allocation(),
                    r.batch(),
                    r.clients(),
                    String.format(Locale.ROOT, "%.1f/%.1f", r.readyMs(0.5), r.readyMs(0.99)),
                    r.heapBytes() / 1e6,
                    r.stateBytes() / 1e6,
                    r.jobsProgressed() + "/" + r.jobs(),
                    r.complete() ? "yes" : "cut short",
                    shares(r),
                    r.fleet().tasksCompleted(),
                    r.fleet().tasksCancelled(),
                    r.fleet().parked(),
                    r.fleet().deadLetters(),
                    r.fleet().failedTransactions(),
                    r.broker().deferred(),
                    r.broker().reopened(),
                    r.broker().staleOpens(),
                    r.broker().backupTasks(),
                    r.broker().deadLetters(),
                    r.broker().openedLagMs(),
                    r.gcPausesInWindow().size(),
                    r.gcMs(),
                    r.gcMaxMs());
        }
    }

    private void printRestore() {
        out.println();
        // a failover has no new process, so no RUNNING time; the rest reads the same
        boolean failover = restored.instances() > 1;
        String what = failover
                ? String.format(
                        Locale.ROOT,
                        "Failover after kill -9 of one of %d broker instances (own processes, one standby replica of"
                                + " each task's state, session timeout %.0f s, transaction timeout %.0f s)",
                        restored.instances(),
                        BrokerProcess.SESSION_TIMEOUT_MS / 1000.0,
                        BrokerProcess.FAILOVER_TRANSACTION_TIMEOUT_MS / 1000.0)
                : "Restore after kill -9 of the broker (its own process)";
        String running = failover
                ? ""
                : String.format(
                        Locale.ROOT,
                        " new process (class-data sharing %s) RUNNING %.1f s,",
                        restored.classDataSharing().describe(),
                        restored.runningSeconds());
        out.printf(
                Locale.ROOT,
                "%s holding %d jobs' state, %d virtual agents, %d rounds closed before (in waves of at most %d jobs"
                        + " at once):%s the first round a live broker planned after the kill closed %.1f s,"
                        + " every live job closed one %.1f s after the kill"
                        + " (%d/%d live jobs progressed)%n",
                what,
                restored.jobs(),
                restored.agents(),
                restored.roundsBefore(),
                FleetRestore.WAVE,
                running,
                restored.firstRoundSeconds(),
                restored.allJobsSeconds(),
                restored.jobsProgressed(),
                restored.liveJobs());
        if (!restored.stores().isEmpty()) {
            out.printf(
                    Locale.ROOT,
                    "  of which restoring the stores: %.1f s to %.1f s after the new JVM started, %,d records%n",
                    restored.restoreFromSeconds(),
                    restored.restoreToSeconds(),
                    restored.restoredRecords());
            for (FleetRestore.StoreRestore s : restored.stores()) {
                out.printf(
                        Locale.ROOT,
                        "    %-14s %3d partitions %,12d records  %.1f s to %.1f s%n",
                        s.store(),
                        s.partitions(),
                        s.records(),
                        s.fromSeconds(),
                        s.toSeconds());
            }
        }
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
     * {@code other} and allocation, into {@code overhead-by-<xName>.png} in {@code dir}; written only where some
     * set has two points or more. Returns the file's name if written.
     */
    private Optional<String> chart(
            ToIntFunction<FleetBench.Result> x,
            ToIntFunction<FleetBench.Result> other,
            String xName,
            String otherName,
            Path dir) {
        // one set of curves per value of the other dimension and allocation
        TreeMap<Integer, TreeMap<String, List<FleetBench.Result>>> groups = new TreeMap<>();
        results.forEach(r -> groups.computeIfAbsent(other.applyAsInt(r), k -> new TreeMap<>())
                .computeIfAbsent(r.allocation(), k -> new ArrayList<>())
                .add(r));
        List<LineChart.Curve> curves = new ArrayList<>();
        groups.forEach((value, byAllocation) -> byAllocation.forEach((allocation, rs) -> {
            if (rs.size() < 2) {
                return;
            }
            List<FleetBench.Result> sorted = rs.stream()
                    .sorted((p, q) -> Integer.compare(x.applyAsInt(p), x.applyAsInt(q)))
                    .toList();
            double[] xs = sorted.stream().mapToDouble(x::applyAsInt).toArray();
            for (double q : new double[] {0.5, 0.9, 0.99}) {
                curves.add(new LineChart.Curve(
                        String.format(
                                Locale.ROOT,
                                "p%d, %d %s, %s",
                                Math.round(q * 100),
                                value,
                                value == 1 ? otherName.substring(0, otherName.length() - 1) : otherName,
                                allocation),
                        xs,
                        sorted.stream().mapToDouble(r -> r.overheadMs(q)).toArray()));
            }
        }));
        if (curves.isEmpty()) {
            return Optional.empty();
        }
        String file = "overhead-by-" + xName + ".png";
        ChartFiles.png(
                LineChart.create(
                        "Control overhead per round against " + xName + " (virtual fleet, exactly-once)",
                        new LineChart.Axis(xName, true),
                        new LineChart.Axis(
                                "close of round k committed -> last assignment of k+1 started at its agent (ms)",
                                false),
                        curves,
                        new PolicyColors(
                                curves.stream().map(LineChart.Curve::name).toList())),
                dir.resolve(file),
                900,
                560);
        return Optional.of(file);
    }

    private void writeRestoreCsv(Path file) throws IOException {
        Files.write(
                file,
                List.of(
                        "instances,agents,jobs,rounds_before,running_s,first_round_s,all_jobs_s,jobs_progressed,"
                                + "live_jobs,restore_from_s,restore_to_s,restored_records,class_data_sharing",
                        String.format(
                                Locale.ROOT,
                                "%d,%d,%d,%d,%.3f,%.3f,%.3f,%d,%d,%.3f,%.3f,%d,%s",
                                restored.instances(),
                                restored.agents(),
                                restored.jobs(),
                                restored.roundsBefore(),
                                restored.runningSeconds(),
                                restored.firstRoundSeconds(),
                                restored.allJobsSeconds(),
                                restored.jobsProgressed(),
                                restored.liveJobs(),
                                restored.restoreFromSeconds(),
                                restored.restoreToSeconds(),
                                restored.restoredRecords(),
                                // on or off, without the why (which the table says)
                                restored.classDataSharing().on() ? "on" : "off")),
                StandardCharsets.UTF_8);
    }

    /**
     * Every measured round's overhead, in the order the rounds closed, with the seconds since the
     * load's first measured close: where the tail of a load comes from (a run of slow rounds, or
     * a slow round every so often) shows here, not in the percentiles. Beside the overhead to the
     * last start: to its assignments' being ready ({@code ready_ms}) and to the last of them being
     * read ({@code assigned_ms}); where ready is later than assigned, the model version was late.
     */
    private void writeRoundsCsv(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(ROUNDS_CSV_HEADER);
        for (FleetBench.Result r : results) {
            List<JobsBench.RoundOverhead> rounds = r.roundOverheads();
            long first = rounds.isEmpty() ? 0 : rounds.get(0).closedNanos();
            Map<String, Double> ready = byRound(r.readyOverheads());
            Map<String, Double> assigned = byRound(r.assignedOverheads());
            for (JobsBench.RoundOverhead o : rounds) {
                lines.add(String.format(
                        Locale.ROOT,
                        "%d,%d,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f",
                        r.agents(),
                        r.jobs(),
                        r.allocation(),
                        o.job(),
                        o.round(),
                        (o.closedNanos() - first) / 1e9,
                        o.ms(),
                        ready.getOrDefault(o.job() + "/" + o.round(), Double.NaN),
                        assigned.getOrDefault(o.job() + "/" + o.round(), Double.NaN),
                        r.gcMs(o)));
            }
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** The overheads by {@code job/round}. */
    private static Map<String, Double> byRound(List<JobsBench.RoundOverhead> overheads) {
        Map<String, Double> ms = new HashMap<>();
        overheads.forEach(o -> ms.put(o.job() + "/" + o.round(), o.ms()));
        return ms;
    }

    private void writeCsv(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(CSV_HEADER);
        for (FleetBench.Result r : results) {
            double[] ms = r.overheadMs();
            lines.add(String.format(
                    Locale.ROOT,
                    "%d,%d,%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.2f,%.1f,%.3f,%d,%b,%s,%d,%d,%d,%d,%d,%.3f,%.3f,%d,%d,%d,%d,%d,%.3f,%d,%.3f,%.3f,%d,%d,%d,%s",
                    r.agents(),
                    r.jobs(),
                    r.allocation(),
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
                    r.cpuMsPerSecond(),
                    r.heapBytes() / 1e6,
                    r.stateBytes() / 1e6,
                    r.jobsProgressed(),
                    r.complete(),
                    Arrays.stream(r.roundsByInstance()).mapToObj(Long::toString).collect(Collectors.joining("/")),
                    r.fleet().tasksCompleted(),
                    r.fleet().tasksCancelled(),
                    r.fleet().deadLetters(),
                    r.fleet().failedTransactions(),
                    r.fleet().parked(),
                    r.readyMs(0.5),
                    r.readyMs(0.99),
                    r.broker().deferred(),
                    r.broker().reopened(),
                    r.broker().staleOpens(),
                    r.broker().backupTasks(),
                    r.broker().deadLetters(),
                    r.broker().openedLagMs(),
                    r.gcPausesInWindow().size(),
                    r.gcMs(),
                    r.gcMaxMs(),
                    r.agentsPerPartition(),
                    r.taskPartitions(),
                    r.claimedTwice(),
                    r.trainers()));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
