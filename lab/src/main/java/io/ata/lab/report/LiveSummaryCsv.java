package io.ata.lab.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code summary.csv} of a live run ({@code ata demo}): one row per training job. A run on a
 * network adds how well and how fast each job learned ({@link #ACCURACY_COLUMNS}).
 */
public final class LiveSummaryCsv {
    public static final List<String> COLUMNS = List.of(
            "policy",
            "job",
            "agents",
            "batch",
            "rounds",
            "wall_time_s",
            "mean_round_time_ms",
            "steady_from_round",
            "steady_mean_round_time_ms",
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

    /**
     * The columns a run on a network adds: the last evaluation's test loss and accuracy; the
     * accuracy held for good and the wall and worker seconds to the first evaluation from which on
     * every one was at or above it ({@link LearningCurve#firstHolding}); the target accuracy and the
     * wall and worker seconds to the first evaluation that reached it. Empty where none did.
     */
    public static final List<String> ACCURACY_COLUMNS = List.of(
            "final_test_loss",
            "final_test_accuracy",
            "hold_accuracy",
            "time_to_hold_s",
            "worker_time_to_hold_s",
            "target_accuracy",
            "time_to_target_s",
            "worker_time_to_target_s");

    private LiveSummaryCsv() {}

    /**
     * A run on the quadratic problem.
     *
     * @param agents the size of the fleet every job ran on
     * @param batch  the tasks per round of every job
     */
    public static void write(Path file, int agents, int batch, List<LiveJobSummary> jobs) {
        try (CsvWriter csv = new CsvWriter(file, COLUMNS)) {
            for (LiveJobSummary j : jobs) {
                csv.row(row(j, agents, batch));
            }
        }
    }

    /**
     * A run on a network: {@code curves.get(i)} is the learning curve of {@code jobs.get(i)}. A
     * network has no suboptimality, so that column is empty.
     *
     * @param hold   the accuracy whose time to hold for good is reported
     * @param target the accuracy whose time to first reach is reported
     */
    public static void write(
            Path file,
            int agents,
            int batch,
            List<LiveJobSummary> jobs,
            List<LearningCurve> curves,
            double hold,
            double target) {
        if (curves.size() != jobs.size()) {
            throw new IllegalArgumentException(jobs.size() + " jobs but " + curves.size() + " learning curves");
        }
        List<String> columns = new ArrayList<>(COLUMNS);
        columns.addAll(ACCURACY_COLUMNS);
        try (CsvWriter csv = new CsvWriter(file, columns)) {
            for (int i = 0; i < jobs.size(); i++) {
                LearningCurve c = curves.get(i);
                List<String> row = row(jobs.get(i), agents, batch);
                row.addAll(List.of(
                        CsvWriter.number(c.finalLoss()),
                        CsvWriter.number(c.finalAccuracy()),
                        CsvWriter.number(hold),
                        CsvWriter.number(c.wallSecondsToHold(hold)),
                        CsvWriter.number(c.workerSecondsToHold(hold)),
                        CsvWriter.number(target),
                        CsvWriter.number(c.wallSecondsTo(target)),
                        CsvWriter.number(c.workerSecondsTo(target))));
                csv.row(row);
            }
        }
    }

    private static List<String> row(LiveJobSummary j, int agents, int batch) {
        double total = j.totalWorkerMs();
        return new ArrayList<>(List.of(
                j.policy(),
                j.job(),
                Integer.toString(agents),
                Integer.toString(batch),
                Long.toString(j.rounds()),
                CsvWriter.number(j.wallSeconds()),
                CsvWriter.number(j.meanRoundMs()),
                Long.toString(j.steadyFromRound()),
                CsvWriter.number(j.steadyMeanRoundMs()),
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
