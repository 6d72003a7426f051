package io.ata.cli;

import static io.ata.cli.CsvTable.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.timinglog.TimingLogWriter;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ata replay} on timing logs written here from a known distribution. */
class ReplayCommandTest {
    private static final List<String> DEFAULT_POLICIES = List.of("fta", "gta", "uta", "ata", "ata-empirical");
    private static final int WORKERS = 9;

    @TempDir
    Path dir;

    /** A log of {@code perWorker} tasks per worker, drawn from the paper's linear time model. */
    private Path writeLog(String name, int perWorker) {
        TaskTimeDistribution[] model = TimeModels.byName("linear", WORKERS);
        SplittableRandom rng = new SplittableRandom(42);
        List<TimingRecord> records = new ArrayList<>();
        for (int k = 0; k < perWorker; k++) {
            for (int w = 0; w < WORKERS; w++) {
                records.add(new TimingRecord("w" + (w + 1), model[w].sample(rng)));
            }
        }
        Path log = dir.resolve(name);
        TimingLogWriter.write(log, records);
        return log;
    }

    private CliRun replay(Path log, Path out, String... extra) {
        List<String> args = new ArrayList<>(
                List.of("replay", "--log", log.toString(), "--batch", "5", "--threads", "2", "--out", out.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(args.toArray(String[]::new));
    }

    @Test
    void replayWritesTheSameOutputsAsSimulate() throws IOException {
        Path log = writeLog("timings.csv", 400);
        Path out = dir.resolve("out");
        CliRun run = replay(log, out);
        assertEquals(0, run.exitCode(), run.transcript());

        CsvTable summary = OutputFiles.checkAll(out, DEFAULT_POLICIES);
        Map<String, String> fta = summary.row("policy", "fta");
        assertEquals("9", fta.get("workers"));
        assertEquals(400 * WORKERS / 5, number(fta, "rounds"), "default rounds: the log's tasks / batch");
        assertTrue(fta.get("description").contains("hindsight"), fta.get("description"));
        assertTrue(number(fta, "mean_round_time") < number(summary.row("policy", "uta"), "mean_round_time"));
        assertTrue(number(fta, "final_objective") > 0, "the quadratic is trained in a replay too");

        String runFile = Files.readString(out.resolve("run.txt"));
        assertTrue(runFile.contains("hindsight oracle"), runFile);
        assertTrue(runFile.contains("(measured from the log"), runFile);
        assertTrue(runFile.contains("when exhausted: cycle"), runFile);
    }

    @Test
    void jsonLinesLogsWork() throws IOException {
        Path log = writeLog("timings.jsonl", 100);
        Path out = dir.resolve("out");
        CliRun run = replay(log, out, "--policies", "fta,ata-auto", "--no-charts", "--when-exhausted", "bootstrap");
        assertEquals(0, run.exitCode(), run.transcript());
        assertEquals(2, CsvTable.read(out.resolve("summary.csv")).rows().size());
    }

    @Test
    void stopEndsRunsEarlyAndSaysSo() throws IOException {
        Path log = writeLog("short.csv", 40);
        Path out = dir.resolve("out");
        CliRun run = replay(log, out, "--when-exhausted", "stop", "--rounds", "3000", "--policies", "fta,gta,ata-auto");
        assertEquals(0, run.exitCode(), run.transcript());

        assertTrue(run.err().contains("warning: fta (seed 5) stopped after"), run.err());
        assertTrue(run.err().contains("has used all its 40 recorded durations"), run.err());
        assertTrue(run.out().contains("stopped early"), run.out());
        CsvTable summary = OutputFiles.checkAll(out, List.of("fta", "gta", "ata-auto"));
        for (Map<String, String> row : summary.rows()) {
            assertTrue(number(row, "rounds") < 3000, row.get("policy") + " ended early");
        }
        CsvTable runs = CsvTable.read(out.resolve("runs.csv"));
        assertTrue(runs.row("policy", "gta").get("stop_reason").contains("recorded durations"));
    }

    @Test
    void missingLogIsNamed() {
        Path missing = dir.resolve("nothing-here.csv");
        CliRun run = replay(missing, dir.resolve("out"));
        assertEquals(1, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("nothing-here.csv") && run.err().contains("no such file"), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
    }

    @Test
    void malformedLineStopsStrictModeAndIsSkippedOnRequest() throws IOException {
        Path log = writeLog("bad.csv", 100);
        List<String> lines = new ArrayList<>(Files.readAllLines(log));
        lines.set(6, "w6,abc,,,,completed"); // file line 7
        Files.write(log, lines);

        CliRun strict = replay(log, dir.resolve("strict"), "--no-charts");
        assertEquals(1, strict.exitCode(), strict.transcript());
        assertTrue(strict.err().contains("bad.csv line 7"), strict.err());
        assertTrue(strict.err().contains("'abc'"), strict.err());
        assertTrue(strict.err().contains("--skip-invalid"), strict.err());

        CliRun lenient =
                replay(log, dir.resolve("lenient"), "--no-charts", "--skip-invalid", "--policies", "fta,ata-auto");
        assertEquals(0, lenient.exitCode(), lenient.transcript());
        assertTrue(lenient.err().contains("skipped 1 invalid line"), lenient.err());
        assertTrue(lenient.err().contains("line 7:"), lenient.err());
        assertTrue(Files.readString(dir.resolve("lenient").resolve("run.txt")).contains("skipped 1 invalid line"));
    }

    @Test
    void unknownExhaustionModeIsAUsageError() {
        CliRun run = replay(writeLog("t.csv", 10), dir.resolve("out"), "--when-exhausted", "wrap");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("unknown exhaustion mode 'wrap'"), run.err());
    }

    @Test
    void missingLogOptionIsAUsageError() {
        CliRun run = CliRun.of("replay");
        assertNotEquals(0, run.exitCode());
        assertTrue(run.err().contains("--log"), run.err());
    }
}
