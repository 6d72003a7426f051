package io.ata.lab.report;

import io.ata.lab.sim.RunResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code run.txt}: everything needed to reproduce a run and to judge its numbers later — the
 * command line, every setting, ATA's constants and where they came from, what each policy said
 * about itself, the fleet, the date and the wall time. Plain text, meant to be read.
 */
public final class RunFile {
    private RunFile() {}

    public static void write(
            Path file, RunInfo info, Map<String, List<RunResult>> results, ZonedDateTime started, Duration wallTime) {
        StringBuilder text = new StringBuilder();
        text.append(info.title()).append("\n\n");
        text.append("command:    ").append(info.commandLine()).append('\n');
        text.append("started:    ")
                .append(started.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME))
                .append('\n');
        text.append("wall time:  ")
                .append(String.format(Locale.ROOT, "%.1f s", wallTime.toMillis() / 1000.0))
                .append("\n\n");

        text.append("settings\n");
        int width =
                info.settings().keySet().stream().mapToInt(String::length).max().orElse(0);
        info.settings()
                .forEach((name, value) -> text.append("  ")
                        .append(pad(name + ":", width + 2))
                        .append(value)
                        .append('\n'));

        if (!info.notes().isEmpty()) {
            text.append("\nnotes\n");
            info.notes().forEach(n -> text.append("  - ").append(n).append('\n'));
        }

        text.append("\npolicies (as each described itself at the end of its run)\n");
        results.forEach((policy, runs) -> describe(text, info, policy, runs));

        text.append("\nworkers (").append(info.fleet().size()).append(")\n");
        info.fleet().forEach(w -> text.append("  ").append(w).append('\n'));

        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** One line per policy, or one per seed when the description changed with the seed. */
    private static void describe(StringBuilder text, RunInfo info, String policy, List<RunResult> runs) {
        boolean same = runs.stream().map(RunResult::description).distinct().count() == 1;
        for (RunResult r : runs) {
            text.append("  ").append(policy);
            if (!same) {
                text.append(" (seed ").append(r.seed()).append(')');
            }
            text.append(": ").append(info.describe(policy, r.description())).append('\n');
            if (same) {
                break;
            }
        }
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }
}
