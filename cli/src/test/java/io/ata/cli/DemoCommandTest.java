package io.ata.cli;

import static io.ata.cli.CsvTable.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.report.LiveSummaryCsv;
import io.ata.lab.timinglog.TimingLog;
import io.ata.lab.timinglog.TimingLogFormat;
import io.ata.lab.timinglog.TimingLogReader;
import io.ata.testsupport.EndToEnd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata demo --workload quadratic} (the paper's problem, the demo of earlier versions) end to
 * end on the embedded Kafka broker: a small fleet, two policies. Its outputs are the same as before
 * the demo trained networks.
 */
@EndToEnd
class DemoCommandTest {
    private static final int ROUNDS = 15;
    private static final int BATCH = 8;

    @TempDir
    Path dir;

    @Test
    void demoTrainsEveryPolicyAndAccountsForTheWorkersTime() throws Exception {
        Path out = dir.resolve("demo");
        CliRun run = CliRun.line(
                "demo --workload quadratic --rounds " + ROUNDS
                        + " --warmup-rounds 2 --agents 4 --policies ata-auto,gta --out",
                out.toString());
        assertEquals(0, run.exitCode(), run.transcript());
        assertTrue(
                run.out().contains("linear time model x 0.2: "), "the quadratic problem's default scale: " + run.out());
        assertTrue(run.out().contains("Schema Registry: http://127.0.0.1:"), run.out());
        assertTrue(run.out().contains("Broker queries:  http://127.0.0.1:"), run.out());
        assertTrue(run.out().contains("wasted work"), run.out());

        assertTrue(run.out().contains("final subopt."), run.out());
        assertFalse(run.out().contains("test accuracy"), run.out());
        assertFalse(Files.exists(out.resolve("eval.csv")), "no evaluations of a network");
        assertFalse(Files.exists(out.resolve("accuracy.png")));
        for (String chart : List.of("rounds.png", "allocation.png")) {
            java.awt.image.BufferedImage image =
                    javax.imageio.ImageIO.read(out.resolve(chart).toFile());
            assertTrue(image != null && image.getWidth() > 1000, chart);
            assertTrue(run.out().contains(chart), "listed in the outputs: " + chart);
        }

        assertFalse(Files.exists(out.resolve("timings-demo-warmup.csv")), "the warm-up job is not reported");
        CsvTable summary = CsvTable.read(out.resolve("summary.csv"));
        assertEquals(LiveSummaryCsv.COLUMNS, summary.header(), "the summary of earlier versions");
        assertEquals(
                List.of("ata-auto", "gta"),
                summary.rows().stream().map(r -> r.get("policy")).toList());
        Map<String, String> ata = summary.row("policy", "ata-auto");
        Map<String, String> gta = summary.row("policy", "gta");
        for (Map<String, String> row : List.of(ata, gta)) {
            assertEquals(ROUNDS, number(row, "rounds"));
            assertEquals("4", row.get("agents"));
            assertEquals(ROUNDS * BATCH, number(row, "tasks_accepted"), row.toString());
            assertTrue(number(row, "mean_round_time_ms") > 0, row.toString());
            assertTrue(number(row, "final_suboptimality") > 0, row.toString());
            assertEquals(
                    number(row, "total_worker_time_ms"),
                    number(row, "accepted_worker_time_ms") + number(row, "wasted_worker_time_ms"),
                    1e-6);
        }
        // ATA allocates exactly B tasks a round, all used but for races with a backup copy; GTA keeps
        // every agent busy and drops the rest
        BackupRaces.Losers losers =
                BackupRaces.assertOnlyLosingCopies(out.resolve(ata.get("timings_file")), ROUNDS * BATCH);
        assertEquals(losers.late(), number(ata, "tasks_late"), ata.toString());
        assertEquals(losers.cancelled(), number(ata, "tasks_cancelled"), ata.toString());
        assertEquals(losers.total() == 0, number(ata, "wasted_worker_time_ms") == 0.0, ata.toString());
        assertTrue(number(gta, "wasted_worker_time_ms") > 0, gta.toString());
        assertTrue(number(gta, "tasks_late") > 0, gta.toString());
        assertTrue(
                number(gta, "total_worker_time_ms") > number(ata, "total_worker_time_ms"),
                "gta " + gta + " vs ata-auto " + ata);

        // each job's timings are a replay log of every task run, with the fates the trainer gave them
        for (Map<String, String> row : List.of(ata, gta)) {
            Path log = out.resolve(row.get("timings_file"));
            TimingLog timings = TimingLogReader.read(log, TimingLogFormat.CSV);
            assertEquals(number(row, "tasks_run"), timings.recordCount(), log.toString());
            assertEquals(4, timings.workerCount());
        }
        CliRun replay = CliRun.replay(
                List.of("--log", out.resolve(ata.get("timings_file")).toString()),
                8,
                "ata-auto,gta",
                dir.resolve("replay"));
        assertEquals(0, replay.exitCode(), replay.transcript());
    }
}
