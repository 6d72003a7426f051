package io.ata.lab.report;

import io.ata.lab.sim.Experiment;
import io.ata.lab.sim.PolicySummary;
import io.ata.lab.sim.RunResult;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Runs a prepared experiment the same way for {@code simulate} and {@code replay}: shows progress,
 * writes every output, warns about runs that stopped early, and prints the result table. The
 * commands only decide what to run; this class decides how.
 */
public final class ExperimentRunner {
    private static final int MAX_STOP_WARNINGS = 10;

    private final String task;
    private final PrintWriter out;
    private final PrintWriter err;

    /**
     * @param task what runs (e.g. the command's name): it labels the progress
     * @param out where the result table goes
     * @param err where progress and warnings go
     */
    public ExperimentRunner(String task, PrintWriter out, PrintWriter err) {
        this.task = task;
        this.out = out;
        this.err = err;
    }

    /**
     * Runs {@code setup} and writes the outputs into {@code outDir}; returns the exit code.
     *
     * @param info describes the run for the reports; asked for after the run, so that it can say
     *             what happened during it (e.g. a replay's reused durations)
     */
    public int run(Experiment.Setup setup, Supplier<RunInfo> info, Path outDir, boolean charts) {
        Reports.createDirectory(outDir); // fail now, not after hours of simulation
        ZonedDateTime started = ZonedDateTime.now();
        long start = System.nanoTime();
        long total = (long) setup.policies().size() * setup.seeds() * setup.rounds();
        Map<String, List<RunResult>> results;
        try (Progress progress = Progress.start(task, total, err)) {
            results = Experiment.run(setup, progress);
        }
        Duration wallTime = Duration.ofNanos(System.nanoTime() - start);

        warnAboutEarlyStops(results, setup.rounds());
        RunInfo described = info.get();
        Reports.write(outDir, results, described, started, wallTime, charts);

        List<PolicySummary> summaries = Reports.summaries(results);
        out.println();
        out.print(ResultTable.format(summaries, results));
        out.println();
        out.println("Pareto-optimal in mean round time vs mean busy time: " + paretoOptimal(summaries));
        out.printf(Locale.ROOT, "times in %s; wall time %.1f s%n", described.timeUnit(), wallTime.toMillis() / 1000.0);
        out.println("outputs in " + outDir.toAbsolutePath().normalize());
        out.flush();
        return 0;
    }

    /** The policies no other beats on both time and cost: the settings worth choosing from. */
    private static String paretoOptimal(List<PolicySummary> summaries) {
        return ParetoFront.of(ParetoFront.timeVsCost(summaries)).stream()
                .map(ParetoFront.Point::label)
                .collect(Collectors.joining(", "));
    }

    /** A replay under {@code --when-exhausted stop} may end a run early: say so, with the reason. */
    private void warnAboutEarlyStops(Map<String, List<RunResult>> results, long rounds) {
        List<RunResult> stopped = results.values().stream()
                .flatMap(List::stream)
                .filter(r -> r.stopReason() != null)
                .toList();
        for (RunResult r : stopped.subList(0, Math.min(MAX_STOP_WARNINGS, stopped.size()))) {
            err.printf(
                    "%s: warning: %s (seed %d) stopped after %d of %d rounds: %s%n",
                    task, r.policy(), r.seed(), r.rounds(), rounds, r.stopReason());
        }
        if (stopped.size() > MAX_STOP_WARNINGS) {
            err.printf(
                    "%s: warning: %d more runs stopped early; see runs.csv%n",
                    task, stopped.size() - MAX_STOP_WARNINGS);
        }
        if (!stopped.isEmpty()) {
            err.printf(
                    "%s: warning: early-stopped runs are averaged over the rounds they completed; "
                            + "the charts show only rounds every seed reached%n",
                    task);
        }
        err.flush();
    }
}
