package io.ata.report;

import java.nio.file.Path;
import java.util.List;

/** {@code summary.csv} of a live run ({@code ata demo}): one row per training job. */
public final class LiveSummaryCsv {
    public static final List<String> COLUMNS = List.of(
            "policy",
            "job",
            "agents",
            "batch",
            "rounds",
            "wall_time_s",
            "mean_round_time_ms",
            "total_worker_time_ms",
            "accepted_worker_time_ms",
            "wasted_worker_time_ms",
            "wasted_fraction",
            "tasks_run",
            "tasks_accepted",
            "tasks_late",
            "tasks_cancelled",
            "final_suboptimality",
            "timings_file");

    private LiveSummaryCsv() {}

    /**
     * @param agents the size of the fleet every job ran on
     * @param batch  the tasks per round of every job
     */
    public static void write(Path file, int agents, int batch, List<LiveJobSummary> jobs) {
        try (CsvWriter csv = new CsvWriter(file, COLUMNS)) {
            for (LiveJobSummary j : jobs) {
                double total = j.totalWorkerMs();
                csv.row(List.of(
                        j.policy(),
                        j.job(),
                        Integer.toString(agents),
                        Integer.toString(batch),
                        Long.toString(j.rounds()),
                        CsvWriter.number(j.wallSeconds()),
                        CsvWriter.number(j.meanRoundMs()),
                        CsvWriter.number(total),
                        CsvWriter.number(j.acceptedWorkerMs()),
                        CsvWriter.number(j.wastedWorkerMs()),
                        CsvWriter.number(total > 0 ? j.wastedWorkerMs() / total : 0),
                        Long.toString(j.tasksRun()),
                        Long.toString(j.tasksAccepted()),
                        Long.toString(j.tasksLate()),
                        Long.toString(j.tasksCancelled()),
                        CsvWriter.number(j.finalSuboptimality()),
                        j.timingsFile()));
            }
        }
    }
}
