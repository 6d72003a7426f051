package io.ata.cli;

import static io.ata.cli.CsvTable.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.report.EvalCsv;
import io.ata.lab.report.LiveSummaryCsv;
import io.ata.testsupport.EndToEnd;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata demo} training a network with DJL, end to end on the embedded Kafka broker: a small
 * fleet, two policies, a few rounds of the mlp on the synthetic data set.
 */
@EndToEnd
class DemoNetworkCommandTest {
    private static final int ROUNDS = 6;
    private static final int EVAL_EVERY = 2;
    private static final int BATCH = 4;
    private static final List<String> POLICIES = List.of("ata-auto", "gta");

    /** The demo's --out. */
    @TempDir
    Path out;

    @Test
    void demoTrainsTheNetworkAndWritesItsLearningCurves() throws Exception {
        CliRun run = CliRun.line(
                "demo --data synthetic --warmup-rounds 0 --rounds " + ROUNDS + " --eval-every " + EVAL_EVERY
                        + " --batch " + BATCH
                        + " --agents 3 --time-scale 0.1 --learning-rate 0.003 --policies " + String.join(",", POLICIES)
                        + " --out",
                out.toString());
        assertEquals(0, run.exitCode(), run.transcript());
        assertTrue(run.out().contains("on synthetic"), run.out());
        assertTrue(run.out().contains("time to first 80%"), run.out());
        assertTrue(run.out().contains("time to hold 78%"), run.out());

        CsvTable eval = CsvTable.read(out.resolve(EvalCsv.FILE));
        assertEquals(EvalCsv.COLUMNS, eval.header());
        CsvTable summary = CsvTable.read(out.resolve("summary.csv"));
        assertEquals(POLICIES, summary.rows().stream().map(r -> r.get("policy")).toList());
        for (String policy : POLICIES) {
            List<Map<String, String>> rows = eval.rowsWhere("policy", policy);
            // versions 0, EVAL_EVERY, ..., ROUNDS: every EVAL_EVERY-th one and the first
            List<Long> rounds = new ArrayList<>();
            for (long r = 0; r <= ROUNDS; r += EVAL_EVERY) {
                rounds.add(r);
            }
            assertEquals(
                    rounds,
                    rows.stream().map(r -> Long.parseLong(r.get("round"))).toList(),
                    policy);
            double wall = 0;
            double worker = 0;
            for (Map<String, String> row : rows) {
                double accuracy = number(row, "test_accuracy");
                assertTrue(accuracy >= 0 && accuracy <= 1, row.toString());
                assertTrue(number(row, "test_loss") > 0, row.toString());
                assertTrue(number(row, "wall_time_s") >= wall, "wall time never decreases: " + row);
                assertTrue(number(row, "worker_time_s") >= worker, "worker time never decreases: " + row);
                wall = number(row, "wall_time_s");
                worker = number(row, "worker_time_s");
            }
            assertEquals(0.0, number(rows.get(0), "worker_time_s"), "no task ran before version 0");
            assertTrue(worker > 0, policy + ": the agents worked for the job");

            Map<String, String> job = summary.row("policy", policy);
            assertEquals(ROUNDS, number(job, "rounds"));
            assertEquals(ROUNDS * BATCH, number(job, "tasks_accepted"), job.toString());
            Map<String, String> last = rows.get(rows.size() - 1);
            assertEquals(number(last, "test_accuracy"), number(job, "final_test_accuracy"), job.toString());
            assertEquals(number(last, "test_loss"), number(job, "final_test_loss"), job.toString());
            assertTrue(
                    wall <= number(job, "wall_time_s") + 0.002, // both to the millisecond
                    "the last version came before the job's end: " + job);
            assertTrue(
                    worker <= number(job, "total_worker_time_ms") / 1e3 + 1e-9,
                    "worker time at the last version is within the job's total: " + job);
            assertEquals(0.8, number(job, "target_accuracy"));
            assertEquals("", job.get("final_suboptimality"), "a network has no suboptimality");
            // time to the target: the first evaluation at or above it, empty if none
            Map<String, String> first = rows.stream()
                    .filter(r -> number(r, "test_accuracy") >= 0.8)
                    .findFirst()
                    .orElse(null);
            assertEquals(first == null ? "" : first.get("wall_time_s"), job.get("time_to_target_s"), job.toString());
            assertEquals(
                    first == null ? "" : first.get("worker_time_s"),
                    job.get("worker_time_to_target_s"),
                    job.toString());
            // time to hold 2 points below it: the first evaluation from which on none is below
            assertEquals(0.78, number(job, "hold_accuracy"), 1e-12);
            Map<String, String> held = null;
            for (Map<String, String> row : rows) {
                if (number(row, "test_accuracy") < 0.78) {
                    held = null;
                } else if (held == null) {
                    held = row;
                }
            }
            assertEquals(held == null ? "" : held.get("wall_time_s"), job.get("time_to_hold_s"), job.toString());
            assertEquals(
                    held == null ? "" : held.get("worker_time_s"), job.get("worker_time_to_hold_s"), job.toString());
            assertEquals(1 + ROUNDS / 5, number(job, "steady_from_round"));
            assertTrue(number(job, "steady_mean_round_time_ms") > 0, job.toString());
        }
        assertEquals(
                LiveSummaryCsv.COLUMNS.size() + LiveSummaryCsv.ACCURACY_COLUMNS.size(),
                summary.header().size());

        BufferedImage chart = ImageIO.read(out.resolve("accuracy.png").toFile());
        assertEquals(1400, chart.getWidth());
        assertEquals(560, chart.getHeight());
    }
}
