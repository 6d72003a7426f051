package io.ata.lab.report;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code eval.csv} of a live run on a network ({@code ata demo}): one row per evaluation of a
 * model version on the test set, policy after policy, in round order.
 */
public final class EvalCsv {
    public static final String FILE = "eval.csv";
    public static final List<String> COLUMNS =
            List.of("policy", "round", "wall_time_s", "worker_time_s", "test_loss", "test_accuracy");

    private EvalCsv() {}

    public static void write(Path file, List<LearningCurve> curves) {
        try (CsvWriter csv = new CsvWriter(file, COLUMNS)) {
            for (LearningCurve c : curves) {
                for (EvaluationPoint p : c.points()) {
                    csv.row(List.of(
                            c.policy(),
                            Long.toString(p.round()),
                            CsvWriter.number(p.wallSeconds()),
                            CsvWriter.number(p.workerSeconds()),
                            CsvWriter.number(p.testLoss()),
                            CsvWriter.number(p.testAccuracy())));
                }
            }
        }
    }
}
