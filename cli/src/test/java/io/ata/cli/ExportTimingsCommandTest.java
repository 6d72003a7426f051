package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.BrokerSettings;
import io.ata.lab.timinglog.TimingLog;
import io.ata.lab.timinglog.TimingLogFormat;
import io.ata.lab.timinglog.TimingLogReader;
import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata export-timings} and {@code ata replay --from-topic} on a live run: the embedded
 * deployment trains two short jobs whose policies use exactly B tasks a round (ata-auto, uta), so
 * the timings topic holds rounds x B records of used results per job, and for ata-auto the losing
 * side of any race with a backup copy ({@link BackupRaces}).
 */
@EndToEnd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExportTimingsCommandTest {
    private static final String PREFIX = "export.";
    private static final int AGENTS = 3;
    private static final int BATCH = 4;
    private static final long ROUNDS = 10;

    private LocalDeployment local;

    @TempDir
    Path dir;

    @BeforeAll
    void trainTwoJobs() throws Exception {
        local = LocalDeployment.embedded(new Topics(PREFIX).withTaskPartitions(4), BrokerSettings.defaults());
        local.startBroker();
        for (int j = 1; j <= AGENTS; j++) {
            local.startAgent(
                    "w" + j, new TaskTimeDistribution.Shifted(2.0 * j, new TaskTimeDistribution.Exponential(2.0 * j)));
        }
        local.awaitFleet(Duration.ofSeconds(60));
        for (String policy : List.of("ata-auto", "uta")) {
            Trainer trainer = local.startTrainer("job-" + policy, policy, BATCH, ROUNDS, RoundListener.NONE);
            assertTrue(trainer.awaitRounds(ROUNDS, Duration.ofSeconds(60)), policy + ": " + trainer.failure());
        }
    }

    @AfterAll
    void stop() {
        if (local != null) {
            local.close();
        }
    }

    private List<String> kafkaArgs(String... more) {
        List<String> args = new ArrayList<>(RunningCommand.clusterOptions(local, PREFIX));
        args.addAll(List.of(more));
        return args;
    }

    private CliRun run(String command, List<String> args) {
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(args);
        return CliRun.of(all.toArray(String[]::new));
    }

    @Test
    void exportsOneJobAsCsvThatReplayReads() throws Exception {
        Path out = dir.resolve("one/ata.csv");
        CliRun run = run("export-timings", kafkaArgs("--job", "job-ata-auto", "--out", out.toString()));
        assertEquals(0, run.exitCode(), run.transcript());
        BackupRaces.Losers losers = BackupRaces.assertOnlyLosingCopies(out, ROUNDS * BATCH);
        long records = ROUNDS * BATCH + losers.total();
        assertTrue(
                run.out()
                        .contains(records + " timing records (" + (ROUNDS * BATCH) + " completed, " + losers.late()
                                + " late, " + losers.cancelled() + " cancelled)"),
                run.out());

        TimingLog log = TimingLogReader.read(out, TimingLogFormat.CSV);
        assertEquals(records, log.recordCount());
        assertEquals(AGENTS, log.workerCount());
        List<String> lines = Files.readAllLines(out);
        assertEquals("worker,duration,round,task,timestamp,status", lines.get(0));
        assertTrue(lines.stream().skip(1).allMatch(l -> l.contains(",job-ata-auto/")), lines.toString());

        CliRun replay =
                CliRun.replay(List.of("--log", out.toString()), BATCH, "fta,ata-auto", dir.resolve("replay-log"));
        assertEquals(0, replay.exitCode(), replay.transcript());
    }

    @Test
    void exportsEveryJobAsJsonLines() throws Exception {
        Path csv = dir.resolve("ata-for-count.csv");
        assertEquals(
                0,
                run("export-timings", kafkaArgs("--job", "job-ata-auto", "--out", csv.toString()))
                        .exitCode());
        BackupRaces.Losers losers = BackupRaces.assertOnlyLosingCopies(csv, ROUNDS * BATCH);
        Path out = dir.resolve("all.jsonl");
        CliRun run = run("export-timings", kafkaArgs("--out", out.toString()));
        assertEquals(0, run.exitCode(), run.transcript());
        TimingLogReader.ReadResult read = TimingLogReader.read(out, TimingLogFormat.JSONL, false);
        assertEquals(2 * ROUNDS * BATCH + losers.total(), read.log().recordCount());
        assertEquals(losers.cancelled(), read.log().cancelledCount(), "uta runs no copies: only ata-auto's losers");
        assertTrue(run.out().contains("job(s) job-ata-auto, job-uta"), run.out());
    }

    @Test
    void replayFromTopicReplaysTheExportedJob() throws Exception {
        Path out = dir.resolve("replay-topic");
        CliRun run = CliRun.replay(kafkaArgs("--from-topic", "--job", "job-uta"), BATCH, "fta,ata-auto", out);
        assertEquals(0, run.exitCode(), run.transcript());
        CsvTable summary = CsvTable.read(out.resolve("summary.csv"));
        assertEquals(
                List.of("fta", "ata-auto"),
                summary.rows().stream().map(r -> r.get("policy")).toList());
        assertEquals(ROUNDS, CsvTable.number(summary.row("policy", "fta"), "rounds"), "the log's tasks / batch");
        String runFile = Files.readString(out.resolve("run.txt"));
        assertTrue(
                runFile.contains("topic " + PREFIX + "timings on " + local.bootstrapServers() + ", job job-uta"),
                runFile);
    }

    @Test
    void anUnknownJobExportsAnEmptyLogAndReplayRefusesIt() {
        Path out = dir.resolve("none.csv");
        CliRun run = run("export-timings", kafkaArgs("--job", "no-such-job", "--out", out.toString()));
        assertEquals(0, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("warning: no timings of job no-such-job"), run.err());
        CliRun replay = run(
                "replay",
                kafkaArgs(
                        "--from-topic",
                        "--job",
                        "no-such-job",
                        "--no-charts",
                        "--out",
                        dir.resolve("none").toString()));
        assertEquals(1, replay.exitCode(), replay.transcript());
        assertTrue(replay.err().contains("nothing to replay"), replay.err());
    }

    @Test
    void aWrongTopicPrefixIsAOneLineError() {
        CliRun run = CliRun.line(
                "export-timings --topic-prefix nope. --bootstrap-servers " + local.bootstrapServers()
                        + " --schema-registry-url " + local.registryUrl() + " --out",
                dir.resolve("x.csv").toString());
        assertEquals(1, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("topic nope.timings does not exist"), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
    }

    /** Durations are the agents' measured compute times: never below their emulated minimum. */
    @Test
    void everyExportedDurationIsAMeasuredComputeTime() {
        Path out = dir.resolve("whole.csv");
        assertEquals(
                0,
                run("export-timings", kafkaArgs("--job", "job-uta", "--out", out.toString()))
                        .exitCode());
        TimingLog log = TimingLogReader.read(out, TimingLogFormat.CSV);
        for (int i = 0; i < log.workerCount(); i++) {
            for (double d : log.durations(i)) {
                assertTrue(d >= 2.0, "at least the shift of the fastest agent: " + d);
            }
        }
    }
}
