package io.ata.report;

import io.ata.sim.RunResult;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code runs.csv}: one row per policy and seed, the values {@code summary.csv} averages, so the
 * spread over seeds can be checked (and a replay's early stops seen per seed).
 */
public final class RunsCsv {
    public static final List<String> COLUMNS = List.of(
            "policy",
            "seed",
            "workers",
            "batch",
            "rounds",
            "runtime",
            "total_worker_time",
            "mean_round_time",
            "mean_busy_time",
            "avg_proxy_regret",
            "final_objective",
            "wasted_fraction",
            "tail_mean_round_time",
            "tail_mean_busy_time",
            "first_fta_round",
            "last_non_fta_round",
            "stop_reason",
            "description");

    private RunsCsv() {}

    public static void write(Path file, Map<String, List<RunResult>> results, RunInfo info) {
        try (CsvWriter csv = new CsvWriter(file, COLUMNS)) {
            for (List<RunResult> runs : results.values()) {
                for (RunResult r : runs) {
                    csv.row(List.of(
                            r.policy(),
                            Long.toString(r.seed()),
                            Integer.toString(r.workers()),
                            Integer.toString(r.batch()),
                            Long.toString(r.rounds()),
                            CsvWriter.number(r.runtime()),
                            CsvWriter.number(r.totalWorkerTime()),
                            CsvWriter.number(r.meanRoundTime()),
                            CsvWriter.number(r.meanBusyTime()),
                            CsvWriter.number(r.averageProxyRegret()),
                            CsvWriter.number(r.finalObjective()),
                            CsvWriter.number(r.wastedFraction()),
                            CsvWriter.number(r.tailRoundTime()),
                            CsvWriter.number(r.tailBusyTime()),
                            Long.toString(r.firstFtaRound()),
                            Long.toString(r.lastNonFtaRound()),
                            r.stopReason() == null ? "" : r.stopReason(),
                            info.describe(r.policy(), r.description())));
                }
            }
        }
    }
}
