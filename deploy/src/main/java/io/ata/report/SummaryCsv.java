package io.ata.report;

import io.ata.sim.PolicySummary;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code summary.csv}: one row per policy, each value the mean over seeds, then the spread over
 * seeds ({@code _sd}) of the main metrics. This is the table to load into a notebook.
 */
public final class SummaryCsv {
    public static final List<String> COLUMNS = List.of(
            "policy",
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
            "seeds",
            "runtime_sd",
            "total_worker_time_sd",
            "mean_round_time_sd",
            "mean_busy_time_sd",
            "avg_proxy_regret_sd",
            "constants",
            "description");

    private SummaryCsv() {}

    public static void write(Path file, List<PolicySummary> summaries, int workers, int batch, RunInfo info) {
        try (CsvWriter csv = new CsvWriter(file, COLUMNS)) {
            for (PolicySummary s : summaries) {
                csv.row(List.of(
                        s.policy(),
                        Integer.toString(workers),
                        Integer.toString(batch),
                        CsvWriter.number(s.rounds().mean()),
                        CsvWriter.number(s.runtime().mean()),
                        CsvWriter.number(s.totalWorkerTime().mean()),
                        CsvWriter.number(s.meanRoundTime().mean()),
                        CsvWriter.number(s.meanBusyTime().mean()),
                        CsvWriter.number(s.averageProxyRegret().mean()),
                        CsvWriter.number(s.finalObjective().mean()),
                        CsvWriter.number(s.wastedFraction().mean()),
                        CsvWriter.number(s.tailRoundTime().mean()),
                        CsvWriter.number(s.tailBusyTime().mean()),
                        CsvWriter.number(s.firstFtaRound().mean()),
                        CsvWriter.number(s.lastNonFtaRound().mean()),
                        Integer.toString(s.seeds()),
                        CsvWriter.number(s.runtime().sd()),
                        CsvWriter.number(s.totalWorkerTime().sd()),
                        CsvWriter.number(s.meanRoundTime().sd()),
                        CsvWriter.number(s.meanBusyTime().sd()),
                        CsvWriter.number(s.averageProxyRegret().sd()),
                        info.constantsOf(s.policy()),
                        info.describe(s.policy(), s.description())));
            }
        }
    }
}
