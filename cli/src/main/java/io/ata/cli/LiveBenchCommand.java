package io.ata.cli;

import io.ata.bench.ControlOverheadBench;
import io.ata.bench.FleetPolicyBench;
import io.ata.bench.JobsBench;
import io.ata.bench.LiveSimRatioBench;
import io.ata.bench.Percentiles;
import io.ata.bench.RoundBreakdown;
import io.ata.broker.BrokerSettings;
import io.ata.lab.report.ChartFiles;
import io.ata.lab.report.LineChart;
import io.ata.lab.report.PolicyColors;
import io.ata.lab.report.Progress;
import io.ata.platform.ops.ProcessMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Benchmarks of the live system on the embedded broker (exactly-once everywhere), printing
 * medians and percentiles; never asserted in tests.
 *
 * <p>Control overhead: from the moment the trainer's transaction closing round {@code k} (and
 * opening {@code k+1}) is committed, to the moment the last agent of round {@code k+1} can start
 * it (its assignment and model version {@code k} both there). Tasks do no work, every agent gets
 * one task per round (UTA with {@code B = n}), so each round measures the full fan-out to the
 * fleet. Each is measured with the broker allocating each round when it opens and with pipelined
 * allocation, side by side ({@code --allocation}).
 *
 * <p>Overhead ratio: the live mean round time divided by the simulator's mean round time for the
 * same time model, policy and fleet, with tasks of 50 to 140 ms.
 *
 * <p>Policies on the demo's fleet ({@code --only policies}, {@link FleetPolicyBench}): each
 * policy's live mean round time and its ratio to {@code uta}'s, idle and with one core kept busy.
 *
 * <p>All measure the steady state of a long training job: rounds run first and are not measured
 * (a fresh JVM runs Kafka's, the broker's and the clients' code interpreted until the JIT has
 * compiled it; a Kafka transaction then takes about half the time). {@code --out} writes every
 * measured round, for plots.
 */
@Command(
        name = "bench-live",
        mixinStandardHelpOptions = true,
        description = "Benchmark the live system: control overhead per round and live/simulated round time.")
public final class LiveBenchCommand extends LiveSystemBenchCommand {

    @Option(
            names = "--fleets",
            paramLabel = "N",
            split = ",",
            defaultValue = "8,32",
            description = "Fleet sizes for the control overhead (default: ${DEFAULT-VALUE}).")
    int[] fleets;

    @Option(
            names = "--workers-per-agent",
            paramLabel = "K",
            defaultValue = "1",
            description = "Run each fleet of the control overhead as agents of K workers each, one consumer per"
                    + " agent (as 'ata worker --device' with K devices); K divides every fleet size"
                    + " (default: ${DEFAULT-VALUE}).")
    int workersPerAgent;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "300",
            description = "Measured rounds per fleet, after the warm-up (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--warmup",
            paramLabel = "N",
            defaultValue = "300",
            description = "Rounds run first and not measured, per fleet (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(
            names = "--ratio-rounds",
            paramLabel = "N",
            defaultValue = "300",
            description = "Measured rounds per policy for the overhead ratio (default: ${DEFAULT-VALUE}).")
    int ratioRounds;

    @Option(
            names = "--ratio-warmup",
            paramLabel = "N",
            defaultValue = "60",
            description = "Rounds of a warm-up job (uta) on the same fleet before each measured job, not measured"
                    + " (default: ${DEFAULT-VALUE}).")
    int ratioWarmup;

    @Option(
            names = "--ratio-policies",
            paramLabel = "POLICY",
            split = ",",
            defaultValue = "fta,ata-auto",
            description = "Policies for the overhead ratio (default: ${DEFAULT-VALUE}).")
    List<String> ratioPolicies;

    @Mixin
    AllocationOption allocation;

    @Option(
            names = "--only",
            paramLabel = "WHAT",
            description = "overhead, ratio, policies or jobs (default: overhead and ratio).")
    String only;

    @Option(
            names = "--jobs",
            paramLabel = "N",
            split = ",",
            defaultValue = "1,10,100",
            description = "Concurrent jobs on one broker for --only jobs; the largest also runs on two broker"
                    + " instances (default: ${DEFAULT-VALUE}).")
    int[] jobCounts;

    @Option(
            names = "--job-rounds",
            paramLabel = "N",
            defaultValue = "50",
            description = "Measured rounds per job for --only jobs, after --job-warmup (default: ${DEFAULT-VALUE}).")
    int jobRounds;

    @Option(
            names = "--job-warmup",
            paramLabel = "N",
            defaultValue = "20",
            description = "Rounds each job of --only jobs runs first, not measured (default: ${DEFAULT-VALUE}).")
    int jobWarmup;

    @Option(
            names = "--fleet-policies",
            paramLabel = "POLICY",
            split = ",",
            defaultValue = "uta,ata-auto,ata-auto-overhead",
            description = "Policies run on the demo's fleet by --only policies, uta first as the reference"
                    + " (default: ${DEFAULT-VALUE}).")
    List<String> fleetPolicies;

    @Option(
            names = "--fleet-rounds",
            paramLabel = "N",
            defaultValue = "300",
            description = "Measured rounds per policy on the demo's fleet (default: ${DEFAULT-VALUE}).")
    int fleetRounds;

    @Option(
            names = "--fleet-load",
            paramLabel = "LOAD",
            split = ",",
            defaultValue = "idle,busy-core",
            description = "Conditions for --only policies: idle, and busy-core (a shell busy loop keeps one core busy"
                    + " for the run) (default: ${DEFAULT-VALUE}).")
    List<String> fleetLoads;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "Also write every measured round to DIR/overhead.csv and DIR/ratio.csv, and the control "
                    + "overhead's distribution per fleet to DIR/overhead-cdf.png.")
    Path outDir;

    /** Transactions timed for the floor that --only jobs prints first. */
    private static final int FLOOR_SAMPLES = 200;

    /** The allocation modes asked for, checked. */
    private List<String> allocations;

    private Progress progress;
    /** The process's registry, for the parts of every deployment the benchmark starts. */
    private MeterRegistry meters;

    @Override
    int bench() throws Exception {
        if (only != null && !List.of("overhead", "ratio", "policies", "jobs").contains(only)) {
            throw usageError("--only must be overhead, ratio, policies or jobs, was '" + only + "'");
        }
        for (String load : fleetLoads) {
            if (!load.equals("idle") && !load.equals("busy-core")) {
                throw usageError("--fleet-load takes idle and busy-core, was '" + load + "'");
            }
        }
        allocations = allocation.modes(spec);
        for (int n : fleets) {
            if (workersPerAgent < 1 || n % workersPerAgent != 0) {
                throw usageError("--workers-per-agent must divide every fleet size, " + workersPerAgent
                        + " does not divide " + n);
            }
        }
        if (outDir != null) {
            Files.createDirectories(outDir);
        }
        PrintWriter out = spec.commandLine().getOut();
        boolean overhead = only == null || only.equals("overhead");
        boolean ratio = only == null || only.equals("ratio");
        boolean policies = "policies".equals(only);
        boolean jobs = "jobs".equals(only);
        long total = (overhead
                        ? allocations.size() * fleets.length * ControlOverheadBench.roundsRun(warmup, rounds)
                        : 0)
                + (jobs
                        ? (Arrays.stream(jobCounts).sum()
                                        + Arrays.stream(jobCounts).max().orElse(0))
                                * (long) (jobWarmup + jobRounds)
                        : 0)
                + (ratio ? (long) allocations.size() * ratioPolicies.size() * (ratioWarmup + ratioRounds) : 0)
                + (policies ? (long) fleetLoads.size() * (ratioWarmup + (long) fleetPolicies.size() * fleetRounds) : 0);
        meters = ProcessMetrics.newRegistry();
        progress = Progress.start("bench-live", total, spec.commandLine().getErr());
        try {
            if (policies) {
                runPolicies(out);
            } else if (jobs) {
                runJobs(out);
            } else {
                run(out, overhead, ratio);
            }
        } finally {
            progress.close();
        }
        return 0;
    }

    /** Rounds allocated per second and the broker's overhead with many concurrent jobs, on one and two instances. */
    private void runJobs(PrintWriter out) throws Exception {
        out.println("Concurrent jobs on one broker (" + JobsBench.AGENTS + " zero-work agents shared, uta, B = "
                + JobsBench.AGENTS + ", " + jobRounds + " measured rounds per job after " + jobWarmup + ")");
        JobsBench bench = new JobsBench(meters, progress::accept);
        double[] floor = bench.transactionalFloor(FLOOR_SAMPLES);
        out.printf(
                Locale.ROOT,
                "floor: a transactional produce, committed, then read by a read_committed consumer (an embedded Kafka"
                        + " started as for the jobs), %d times:"
                        + " p50 %.1f ms, p99 %.1f ms%n",
                floor.length,
                Percentiles.of(floor, 0.5),
                Percentiles.of(floor, 0.99));
        out.printf(
                "%-6s %-10s %-8s %10s %12s %12s %12s%n",
                "jobs", "instances", "rounds", "seconds", "rounds/s", "p50 ms", "p99 ms");
        out.flush();
        List<JobsBench.Result> results = new ArrayList<>();
        int largest = Arrays.stream(jobCounts).max().orElseThrow();
        List<int[]> loads = new ArrayList<>();
        for (int j : jobCounts) {
            loads.add(new int[] {j, 1});
        }
        loads.add(new int[] {largest, 2});
        for (int[] load : loads) {
            JobsBench.Result r = bench.run(load[0], load[1], jobRounds, jobWarmup);
            results.add(r);
            out.printf(
                    Locale.ROOT,
                    "%-6d %-10d %-8d %10.1f %12.1f %12.1f %12.1f%n",
                    r.jobs(),
                    r.instances(),
                    r.rounds(),
                    r.seconds(),
                    r.roundsPerSecond(),
                    Percentiles.of(r.overheadMs(), 0.5),
                    Percentiles.of(r.overheadMs(), 0.99));
            out.flush();
        }
        JobsBench.Result one = results.get(results.size() - 2);
        JobsBench.Result two = results.get(results.size() - 1);
        out.printf(
                Locale.ROOT,
                "two instances / one at %d jobs: %.2fx the rounds per second%n",
                largest,
                two.roundsPerSecond() / one.roundsPerSecond());
    }

    /**
     * The live rounds against their own draws played back to back, and where the difference went:
     * free of the sampling noise between the live and simulated means.
     */
    private static void printBreakdowns(PrintWriter out, String row, Map<String, RoundBreakdown.Summary> breakdowns) {
        out.println();
        out.println("The same live rounds against their own task times played back to back (the simulator's round on"
                + " the live draws),");
        out.println("and the difference taken apart on each round's critical path (means per round, ms; the first"
                + " round left out):");
        out.printf(
                row + " %-10s %8s %8s %8s %8s %8s %8s %8s %8s%n",
                "policy",
                "allocation",
                "live",
                "draws",
                "ratio",
                "overhead",
                "publish",
                "to start",
                "between",
                "result");
        breakdowns.forEach((name, b) -> out.printf(
                "%s %8.1f %8.1f %8.3f %8.2f %8.2f %8.2f %8.2f %8.2f%n",
                name,
                b.liveMs(),
                b.drawsMs(),
                b.ratio(),
                b.overheadMs(),
                b.publishMs(),
                b.modelToStartMs(),
                b.betweenTasksMs(),
                b.resultToTrainerMs()));
        out.println("(publish: the trainer's close, to its commit; to start: that commit to the critical worker's"
                + " first task, negative if it");
        out.println(" started on the version before the commit returned; between: its gaps between tasks; result:"
                + " the rest, its last");
        out.println(" result's transaction and the trainer's read)");
        out.flush();
    }

    /** Each policy's live mean round time on the demo's fleet, and its ratio to the first policy's. */
    private void runPolicies(PrintWriter out) throws Exception {
        out.println("Live mean round time on the demo's fleet (" + FleetPolicyBench.AGENTS
                + " agents, linear model x " + FleetPolicyBench.TIME_SCALE + ", quadratic problem, B = "
                + FleetPolicyBench.BATCH + ", after a " + ratioWarmup + "-round warm-up job)");
        out.printf(
                "%-10s %-22s %-8s %10s %10s %12s%n",
                "load", "policy", "rounds", "mean ms", "median ms", "vs " + fleetPolicies.get(0));
        out.flush();
        List<String> rows = new ArrayList<>();
        FleetPolicyBench bench = new FleetPolicyBench(meters, progress::accept);
        for (String load : fleetLoads) {
            Map<String, double[]> times = bench.run(fleetPolicies, fleetRounds, ratioWarmup, load.equals("busy-core"));
            double reference = FleetPolicyBench.mean(times.get(fleetPolicies.get(0)));
            for (Map.Entry<String, double[]> e : times.entrySet()) {
                double mean = FleetPolicyBench.mean(e.getValue());
                out.printf(
                        "%-10s %-22s %-8d %10.1f %10.1f %12.3f%n",
                        load,
                        e.getKey(),
                        e.getValue().length,
                        mean,
                        FleetPolicyBench.median(e.getValue()),
                        mean / reference);
            }
            out.flush();
            rows.addAll(FleetPolicyBench.csvRows(times, load));
        }
        if (outDir != null) {
            writeCsv(outDir.resolve("policies.csv"), "load,policy,round,round_ms", rows);
            out.println();
            out.println("outputs in " + outDir + ": policies.csv");
        }
    }

    private void run(PrintWriter out, boolean overhead, boolean ratio) throws Exception {
        List<String> overheadRows = new ArrayList<>();
        List<String> ratioRows = new ArrayList<>();
        List<LineChart.Curve> overheadCdfs = new ArrayList<>();
        if (overhead) {
            out.println("Control overhead per round: trainer's close of round k committed -> the last agent of"
                    + " round k+1 can start (its assignment and model version k both there)");
            out.println(
                    "(exactly-once broker, transactional trainer and agents, embedded KRaft broker, zero-work tasks)");
            if (workersPerAgent > 1) {
                out.println("(each agent runs " + workersPerAgent + " workers over one consumer: the agents column"
                        + " counts workers)");
            }
            out.printf(
                    "%-8s %-10s %-8s %10s %10s %10s %10s%n",
                    "agents", "allocation", "rounds", "p50 ms", "p90 ms", "p99 ms", "max ms");
            out.flush();
            for (int n : fleets) {
                for (String mode : allocations) {
                    ControlOverheadBench bench = new ControlOverheadBench(meters, progress::accept, settings(mode));
                    double[] ms = bench.run(n, workersPerAgent, warmup, rounds);
                    for (int k = 0; k < ms.length; k++) {
                        overheadRows.add(n + "," + mode + "," + (warmup + k + 1) + "," + ms[k] + "," + workersPerAgent);
                    }
                    Arrays.sort(ms);
                    overheadCdfs.add(cdf(n + " agents, " + mode, ms));
                    out.printf(
                            "%-8d %-10s %-8d %10.1f %10.1f %10.1f %10.1f%n",
                            n,
                            mode,
                            ms.length,
                            Percentiles.of(ms, 0.5),
                            Percentiles.of(ms, 0.9),
                            Percentiles.of(ms, 0.99),
                            ms[ms.length - 1]);
                    out.flush();
                }
            }
        }
        if (ratio) {
            out.println();
            out.println("Overhead ratio: live mean round time / simulated mean round time (same time model, policy,"
                    + " fleet)");
            out.println("(8 agents, agent j's task time (25 + 6.25 (j-1)) + Exp(same) ms: means 50 to 137.5 ms; B = 8;"
                    + " live: after a " + ratioWarmup + "-round warm-up job)");
            // the rows print as they are measured, so the policy column is as wide as the longest name
            String row = "%-"
                    + Math.max(
                            12,
                            ratioPolicies.stream()
                                    .mapToInt(String::length)
                                    .max()
                                    .orElse(0)) + "s";
            out.printf(
                    row + " %-10s %-8s %14s %14s %8s%n",
                    "policy",
                    "allocation",
                    "rounds",
                    "live ms",
                    "simulated ms",
                    "ratio");
            out.flush();
            Map<String, RoundBreakdown.Summary> breakdowns = new LinkedHashMap<>();
            for (String policy : ratioPolicies) {
                for (String mode : allocations) {
                    LiveSimRatioBench bench = new LiveSimRatioBench(meters, progress::accept, settings(mode));
                    LiveSimRatioBench.Result r = bench.run(policy, ratioWarmup, ratioRounds);
                    for (int k = 0; k < ratioRounds; k++) {
                        ratioRows.add(policy + "," + mode + "," + (k + 1) + "," + r.liveRoundsMs()[k]);
                    }
                    out.printf(
                            row + " %-10s %-8d %14.1f %14.1f %8.3f%n",
                            policy,
                            mode,
                            ratioRounds,
                            r.liveMeanMs(),
                            r.simulatedMeanMs(),
                            r.ratio());
                    out.flush();
                    breakdowns.put(String.format(row + " %-10s", policy, mode), r.breakdown());
                }
            }
            printBreakdowns(out, row, breakdowns);
        }
        if (outDir != null) {
            List<String> written = new ArrayList<>();
            if (overhead) {
                writeCsv(
                        outDir.resolve("overhead.csv"),
                        "agents,allocation,round,overhead_ms,workers_per_agent",
                        overheadRows);
                ChartFiles.png(
                        LineChart.create(
                                "Control overhead per round (exactly-once, zero-work tasks)",
                                new LineChart.Axis("close of round k committed -> last agent can start k+1 (ms)", true),
                                new LineChart.Axis("fraction of rounds", false),
                                overheadCdfs,
                                new PolicyColors(overheadCdfs.stream()
                                        .map(LineChart.Curve::name)
                                        .toList())),
                        outDir.resolve("overhead-cdf.png"),
                        900,
                        560);
                written.addAll(List.of("overhead.csv", "overhead-cdf.png"));
            }
            if (ratio) {
                writeCsv(outDir.resolve("ratio.csv"), "policy,allocation,round,live_round_ms", ratioRows);
                written.add("ratio.csv");
            }
            out.println();
            out.println("outputs in " + outDir + ": " + String.join(", ", written));
        }
    }

    /** The broker's settings for allocation {@code mode}. */
    private static BrokerSettings settings(String mode) {
        return AllocationOption.settings(BrokerSettings.defaults(), mode);
    }

    /** The empirical distribution function of sorted values: the fraction of values at or below each. */
    static LineChart.Curve cdf(String name, double[] sorted) {
        double[] fraction = new double[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            fraction[i] = (i + 1.0) / sorted.length;
        }
        return new LineChart.Curve(name, sorted.clone(), fraction);
    }

    private static void writeCsv(Path file, String header, List<String> rows) throws IOException {
        List<String> lines = new ArrayList<>(rows.size() + 1);
        lines.add(header);
        lines.addAll(rows);
        Files.write(file, lines, StandardCharsets.UTF_8);
    }
}
