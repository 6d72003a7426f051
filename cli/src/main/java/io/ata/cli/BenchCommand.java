package io.ata.cli;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.lab.sim.ModelDurations;
import io.ata.lab.sim.PolicyRun;
import io.ata.lab.sim.SeriesSampler;
import io.ata.lab.sim.StatisticsAge;
import io.ata.workloads.QuadraticProblem;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Benchmarks that print their figures (never asserted in tests: machines are shared and noisy).
 *
 * <p>Each case runs in a fresh JVM by default (as JMH forks do), so no case inherits the JIT
 * profile of another.
 *
 * <p>Solver: the exact allocation solver against one plain O(n) pass over the same statistics
 * (computing every mean {@code T_i / K_i}), measured alternately in the same run so the ratio is
 * robust to machine load; water-filling with a heap is shown for reference. Simulator: rounds per
 * second of single-threaded policy runs on the linear model, and the cost of the SGD trajectory.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Benchmark the allocation solver and the simulator; prints medians and ratios.")
public final class BenchCommand implements Callable<Integer> {

    @Option(
            names = "--repetitions",
            paramLabel = "N",
            defaultValue = "41",
            description = "Timed repetitions per solver case (median reported). Default: ${DEFAULT-VALUE}.")
    int repetitions;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "300000",
            description = "Rounds per simulator measurement. Default: ${DEFAULT-VALUE}.")
    long rounds;

    @Mixin
    LogOptions logging;

    @Option(names = "--only", paramLabel = "solver|simulator", description = "solver or simulator (default: both).")
    String only;

    @Option(
            names = "--in-process",
            description = "Measure every case in this JVM instead of a fresh JVM per case "
                    + "(faster, but each case then runs with the JIT profile left by the ones before).")
    boolean inProcess;

    @Option(names = "--case", hidden = true, description = "Measure one case and print it (used by the forked JVMs).")
    String singleCase;

    private static final int[][] SOLVER_CASES = {{10_000, 1_000}, {100_000, 10_000}, {51, 23}, {459, 23}};
    private static final int[] SIMULATOR_FLEETS = {51, 459};
    private static final List<String> SIMULATOR_POLICIES = List.of(
            "fta", "uta", "gta", "ata", "ata-empirical", "ata-auto", "ata-auto-no-drift", "ata-hedge:2", "ata-ert");

    @Spec
    CommandSpec spec;

    /** Keeps results alive so the JIT cannot drop the measured work. */
    private double sink;

    @Override
    public Integer call() throws Exception {
        logging.apply();
        if (singleCase != null) {
            out().println(measureCase(singleCase));
            return 0;
        }
        if (only == null || only.equals("solver")) {
            out().println("Allocation solver vs one plain O(n) pass over the same statistics");
            out().printf(
                            "%-20s %14s %14s %14s %10s %12s%n",
                            "case", "pass median", "solver median", "heap median", "solver/pass", "heap/pass");
            for (int[] c : SOLVER_CASES) {
                out().println(run("solver:" + c[0] + ":" + c[1]));
            }
        }
        if (only == null || only.equals("simulator")) {
            out().printf(
                            "%nSimulator throughput, linear model, one thread, %,d rounds per run (median of 3)%n",
                            rounds);
            out().printf("%-8s %-22s %16s%n", "n", "policy", "rounds/s");
            for (int n : SIMULATOR_FLEETS) {
                for (String policy : SIMULATOR_POLICIES) {
                    out().println(run("simulator:" + n + ":" + policy));
                }
            }
            out().println(run("sgd"));
        }
        out().println(inProcess ? "(all cases in one JVM)" : "(each case in a fresh JVM)");
        return 0;
    }

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** Measures {@code spec} in a fresh JVM (the default) or in this one. */
    private String run(String spec) throws Exception {
        if (inProcess) {
            return measureCase(spec);
        }
        String javaCommand = ProcessHandle.current().info().command().orElse("java");
        List<String> command = List.of(
                javaCommand,
                "-Djava.awt.headless=true",
                "-cp",
                System.getProperty("java.class.path"),
                AtaCommand.class.getName(),
                "bench",
                "--case",
                spec,
                "--repetitions",
                Integer.toString(repetitions),
                "--rounds",
                Long.toString(rounds));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (child.waitFor() != 0) {
            throw new IllegalStateException("benchmark case " + spec + " failed: " + output);
        }
        return output;
    }

    private String measureCase(String spec) {
        String[] part = spec.split(":", 3); // a policy name may contain ":" (ata-hedge:2)
        return switch (part[0]) {
                    case "solver" -> benchSolver(Integer.parseInt(part[1]), Integer.parseInt(part[2]));
                    case "simulator" -> benchSimulator(Integer.parseInt(part[1]), part[2]);
                    case "sgd" -> benchSgd();
                    default -> throw new IllegalArgumentException("unknown benchmark case " + spec);
                }
                + (sink == 42 ? " " : "");
    }

    private String benchSolver(int n, int batch) {
        long[] count = new long[n];
        double[] sum = new double[n];
        SplittableRandom rng = new SplittableRandom(n);
        for (int i = 0; i < n; i++) {
            count[i] = 1 + rng.nextInt(1000);
            double mean = 58.0 * (i + 1) * (0.9 + 0.2 * rng.nextDouble());
            sum[i] = mean * count[i];
        }
        double[] scores = new double[n];
        int[] allocation = new int[n];
        AllocationSolver solver = new AllocationSolver();
        int reps = n <= 1000 ? repetitions * 50 : repetitions;
        int inner = n <= 1000 ? 200 : 1;
        long[] pass = new long[reps];
        long[] solve = new long[reps];
        long[] heap = new long[reps];
        // Warm up for a fixed time, not a fixed count: the JIT must have compiled every loop
        // before timing (a few hundred calls are not enough at n = 10^4).
        long warmUntil = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < warmUntil) {
            measure(
                    count,
                    sum,
                    scores,
                    allocation,
                    solver,
                    batch,
                    inner,
                    new long[reps],
                    new long[reps],
                    new long[reps]);
        }
        measure(count, sum, scores, allocation, solver, batch, inner, pass, solve, heap);
        double p = median(pass) / inner;
        double s = median(solve) / inner;
        double h = median(heap) / inner;
        return String.format(
                "%-20s %11.1f us %11.1f us %11.1f us %9.2fx %11.2fx",
                "n=" + n + " B=" + batch, p / 1e3, s / 1e3, h / 1e3, s / p, h / p);
    }

    /** Alternates pass / solver / heap so that all three see the same machine conditions. */
    private void measure(
            long[] count,
            double[] sum,
            double[] scores,
            int[] allocation,
            AllocationSolver solver,
            int batch,
            int inner,
            long[] pass,
            long[] solve,
            long[] heap) {
        int n = count.length;
        for (int r = 0; r < pass.length; r++) {
            long t0 = System.nanoTime();
            for (int k = 0; k < inner; k++) {
                double total = 0;
                for (int i = 0; i < n; i++) {
                    double mean = sum[i] / count[i];
                    scores[i] = mean;
                    total += mean;
                }
                sink += total;
            }
            long t1 = System.nanoTime();
            for (int k = 0; k < inner; k++) {
                sink += solver.solve(scores, n, batch, allocation);
            }
            long t2 = System.nanoTime();
            boolean timeHeap = n <= 10_000 || r % 4 == 0;
            if (timeHeap) {
                for (int k = 0; k < inner; k++) {
                    sink += AllocationSolver.waterFill(scores, n, batch, allocation);
                }
            }
            long t3 = System.nanoTime();
            pass[r] = t1 - t0;
            solve[r] = t2 - t1;
            heap[r] = timeHeap ? t3 - t2 : -1;
        }
    }

    private static double median(long[] values) {
        long[] kept = Arrays.stream(values).filter(v -> v >= 0).sorted().toArray();
        return kept[kept.length / 2];
    }

    private String benchSimulator(int n, String name) {
        TaskTimeDistribution[] model = TimeModels.byName("linear", n);
        double[] means = TimeModels.means(model);
        PolicyContext context =
                new PolicyContext(n, 23, means, ConstantConvention.EXPERIMENTS, Double.NaN, Double.NaN, "bench");
        int[] fta = new int[n];
        new AllocationSolver().solve(means, n, 23, fta);
        PolicyRun runner = new PolicyRun(n, 23, means, fta);
        long[] sampled = SeriesSampler.rounds(rounds);
        double[] rates = new double[3];
        for (int rep = 0; rep < rates.length; rep++) {
            WorkerStats stats = new WorkerStats(n);
            AllocationPolicy policy = PolicyFactory.create(name, context, rep, stats);
            long t0 = System.nanoTime();
            sink += runner.run(
                            policy,
                            StatisticsAge.FRESH,
                            stats,
                            new ModelDurations(model, rep),
                            rounds,
                            rep,
                            sampled,
                            null,
                            null)
                    .runtime();
            rates[rep] = rounds / ((System.nanoTime() - t0) / 1e9);
        }
        Arrays.sort(rates);
        return String.format("%-8d %-22s %,16.0f", n, name, rates[1]);
    }

    private String benchSgd() {
        QuadraticProblem problem = QuadraticProblem.paper();
        long[] sampled = SeriesSampler.rounds(rounds);
        sink += problem.objectiveCurve(sampled, 23, 0)[0]; // warm-up
        long t0 = System.nanoTime();
        sink += problem.objectiveCurve(sampled, 23, 1)[0];
        double rate = rounds / ((System.nanoTime() - t0) / 1e9);
        return String.format("SGD on the quadratic (d=100), shared by all policies of a seed: %,.0f rounds/s", rate);
    }
}
