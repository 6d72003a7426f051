package io.ata.cli;

import io.ata.bench.Soak;
import io.ata.bench.SoakReport;
import io.ata.bench.SoakResult;
import io.ata.lab.report.Progress;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata bench-soak}: one job on the live system (embedded Kafka, Schema Registry, broker,
 * agents, trainer, all in this process) for a given time under every disturbance at once, and
 * whether every round still closes ({@link Soak}, {@link SoakReport}).
 */
@Command(
        name = "bench-soak",
        mixinStandardHelpOptions = true,
        description = {
            "Soak the live system: train one quadratic job on an embedded Kafka with the real broker, agents and "
                    + "trainer for --minutes, under honest outliers (1 task id in 40 computes a gradient 30 times "
                    + "too big), floods of forged result slices and results, bad records on every topic (model and "
                    + "optimizer under the job's key included), slow and silent HTTP clients against the registry "
                    + "and the broker while the broker's /health is probed, crowds of connections, and restarts of "
                    + "the trainer, an agent and the broker in turn.",
            "Prints a table: rounds closed and per second, the median round time, the longest gap between two closed "
                    + "rounds (when, and what happened just before), stalls re-driven, dead letters by component "
                    + "and their latency, /health latency, the disk the Kafka log directory used, and the goals: no "
                    + "permanent stall; longest gap <= max(10 s, 20 x the median round); every forged record that "
                    + "met an open round dead-lettered within 1 s (outside trainer restarts); /health always answered "
                    + "(outside broker restarts).",
            "Writes soak.csv, soak-rounds.csv, soak-letters.csv, soak-forged.csv, soak-events.csv, soak-health.csv and soak-gaps.png "
                    + "into --out. Exit code 3 if a goal fails."
        })
public final class SoakBenchCommand extends LiveSystemBenchCommand {
    /** The exit code when the soak ran but a goal failed. */
    static final int GOAL_FAILED = 3;

    @Option(
            names = "--minutes",
            paramLabel = "N",
            defaultValue = "30",
            description = "How long the disturbances last, in minutes; fractions allowed (default: ${DEFAULT-VALUE}).")
    double minutes;

    @Option(
            names = "--agents",
            paramLabel = "N",
            defaultValue = "4",
            description = "Worker agents, tasks of about 10 to 24 ms each (default: ${DEFAULT-VALUE}).")
    int agents;

    @Option(
            names = "--seed",
            paramLabel = "N",
            defaultValue = "1",
            description = "Seed of the task times, the job's noise and the bad records (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    OutputDirectory out;

    @Override
    int bench() throws Exception {
        if (!(minutes > 0) || minutes > 7 * 24 * 60) {
            throw usageError("--minutes must be above 0 and at most a week, was " + minutes);
        }
        if (agents < 1 || agents > 64) {
            throw usageError("--agents must be 1 to 64, was " + agents);
        }
        Files.createDirectories(out.path());
        PrintWriter stdout = spec.commandLine().getOut();
        Soak.Settings settings = new Soak.Settings(Duration.ofMillis(Math.round(minutes * 60_000)), seed, agents);
        stdout.printf(
                "bench-soak: %s of disturbances, %d agents, seed %d; starting the system%n",
                settings.duration(), agents, seed);
        stdout.flush();
        SoakResult result;
        AtomicLong shown = new AtomicLong();
        try (Progress progress = Progress.start(
                "bench-soak",
                settings.duration().toSeconds(),
                "s",
                spec.commandLine().getErr())) {
            result = new Soak(settings).run(seconds -> {
                long before = shown.getAndAccumulate(seconds, Math::max);
                if (seconds > before) {
                    progress.accept(seconds - before);
                }
            });
        }
        SoakReport report = SoakReport.of(result);
        stdout.println();
        stdout.print(report.table());
        List<String> files = report.write(out.path());
        stdout.println();
        stdout.println("outputs in " + out.path() + ": " + String.join(", ", files));
        List<String> failed = report.goals().stream()
                .filter(g -> !g.holds())
                .map(g -> g.name() + " (" + g.detail() + ")")
                .toList();
        if (!failed.isEmpty()) {
            stdout.println("goals failed: " + String.join("; ", failed));
            stdout.flush();
            return GOAL_FAILED;
        }
        stdout.println("every goal holds");
        stdout.flush();
        return 0;
    }
}
