package io.ata.lab.report;

import io.ata.lab.sim.PolicySummary;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code summary.csv}: one row per policy, each value the mean over seeds, then the spread over
 * seeds ({@code _sd}) of the main metrics. This is the table to load into a notebook.
 */
public final class SummaryCsv {
    /** The metrics whose spread over seeds gets a column of its own. */
    private static final List<RunMetric> WITH_SPREAD = List.of(
            RunMetric.RUNTIME,
            RunMetric.TOTAL_WORKER_TIME,
            RunMetric.MEAN_ROUND_TIME,
            RunMetric.MEAN_BUSY_TIME,
            RunMetric.AVG_PROXY_REGRET);

    public static final List<String> COLUMNS = columns();

    private SummaryCsv() {}

    private static List<String> columns() {
        List<String> columns = new ArrayList<>(List.of("policy", "workers", "batch"));
        for (RunMetric m : RunMetric.values()) {
            columns.add(m.column());
        }
        columns.add("seeds");
        for (RunMetric m : WITH_SPREAD) {
            columns.add(m.column() + "_sd");
        }
        columns.addAll(List.of("constants", "description"));
        return List.copyOf(columns);
    }

    public static void write(Path file, List<PolicySummary> summaries, int workers, int batch, RunInfo info) {
        try (CsvWriter csv = new CsvWriter(file, COLUMNS)) {
            for (PolicySummary s : summaries) {
                List<String> row =
                        new ArrayList<>(List.of(s.policy(), Integer.toString(workers), Integer.toString(batch)));
                for (RunMetric m : RunMetric.values()) {
                    row.add(CsvWriter.number(m.overSeeds(s).mean()));
                }
                row.add(Integer.toString(s.seeds()));
                for (RunMetric m : WITH_SPREAD) {
                    row.add(CsvWriter.number(m.overSeeds(s).sd()));
                }
                row.add(info.constantsOf(s.policy()));
                row.add(info.describe(s.policy(), s.description()));
                csv.row(row);
            }
        }
    }
}
