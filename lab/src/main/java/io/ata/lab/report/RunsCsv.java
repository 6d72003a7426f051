package io.ata.lab.report;

import io.ata.lab.sim.RunResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code runs.csv}: one row per policy and seed, the values {@code summary.csv} averages, so the
 * spread over seeds can be checked (and a replay's early stops seen per seed).
 */
public final class RunsCsv {
    public static final List<String> COLUMNS = columns();

    private RunsCsv() {}

    private static List<String> columns() {
        List<String> columns = new ArrayList<>(List.of("policy", "seed", "workers", "batch"));
        for (RunMetric m : RunMetric.values()) {
            columns.add(m.column());
        }
        columns.addAll(List.of("stop_reason", "description"));
        return List.copyOf(columns);
    }

    public static void write(Path file, Map<String, List<RunResult>> results, RunInfo info) {
        try (CsvWriter csv = new CsvWriter(file, COLUMNS)) {
            for (List<RunResult> runs : results.values()) {
                for (RunResult r : runs) {
                    List<String> row = new ArrayList<>(List.of(
                            r.policy(),
                            Long.toString(r.seed()),
                            Integer.toString(r.workers()),
                            Integer.toString(r.batch())));
                    for (RunMetric m : RunMetric.values()) {
                        row.add(CsvWriter.number(m.inRun(r)));
                    }
                    row.add(r.stopReason() == null ? "" : r.stopReason());
                    row.add(info.describe(r.policy(), r.description()));
                    csv.row(row);
                }
            }
        }
    }
}
