package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.bench.fleet.FleetReport;
import io.ata.testsupport.EndToEnd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata bench-fleet} end to end, tiny: a virtual fleet on a real embedded Kafka, the real
 * broker and trainers. It checks what the command reports and writes, never the figures (speed is
 * not asserted in tests).
 */
@EndToEnd
class FleetBenchCommandTest {

    @TempDir
    Path out;

    @Test
    void measuresEachLoadUnderEachAllocationAndWritesTheTableChartAndCsv() throws Exception {
        CliRun run = CliRun.of(
                "bench-fleet",
                "--agents",
                "4,8",
                "--jobs",
                "1",
                "--warmup",
                "3",
                "--rounds",
                "4",
                "--out",
                out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        List<String> rows = run.out()
                .lines()
                .filter(l -> l.matches("^[48] +1 +(at-open|pipelined) +[0-9]+ +-?[0-9]+\\.[0-9] .*"))
                .toList();
        assertEquals(4, rows.size(), "each fleet at open and pipelined: " + run.transcript());
        for (String line : rows) {
            String[] f = line.trim().split(" +");
            // every measured round but the first closes inside the window
            assertEquals(3, Integer.parseInt(f[3]), line);
            double[] percentiles =
                    Arrays.stream(f, 4, 7).mapToDouble(Double::parseDouble).toArray();
            double[] ordered = percentiles.clone();
            Arrays.sort(ordered);
            assertArrayEquals(ordered, percentiles, "p50 <= p90 <= p99: " + line);
            // measured from the close's commit, the start of the next round comes after it
            assertTrue(percentiles[0] > 0, line);
        }

        CsvTable fleet = CsvTable.read(out.resolve("fleet.csv"));
        assertEquals(List.of(FleetReport.CSV_HEADER.split(",")), fleet.header());
        List<Map<String, String>> csv = fleet.rows();
        assertEquals(
                List.of("4 at-open", "4 pipelined", "8 at-open", "8 pipelined"),
                csv.stream()
                        .map(r -> r.get("agents") + " " + r.get("allocation"))
                        .toList());
        for (Map<String, String> r : csv) {
            assertEquals("true", r.get("complete"), r.toString());
            assertEquals("0", r.get("dead_letters"), r.toString());
            // the fleet's work: a task per agent per round, the warm-up too (a backup copy may add one)
            assertTrue(
                    Integer.parseInt(r.get("tasks_completed")) >= Integer.parseInt(r.get("agents")) * 7, r.toString());
            // pipelined, the agents hold the round planned ahead; at open nothing comes early
            assertEquals(r.get("allocation").equals("pipelined"), Integer.parseInt(r.get("parked")) > 0, r.toString());
            assertTrue(CsvTable.number(r, "state_mb") > 0, "the broker's state is measured: " + r);
            // the broker's CPU per second of the window is its CPU per round times rounds per second
            assertEquals(
                    CsvTable.number(r, "cpu_ms_per_round") * CsvTable.number(r, "rounds_per_s"),
                    CsvTable.number(r, "cpu_ms_per_s"),
                    0.01 * CsvTable.number(r, "cpu_ms_per_s") + 0.01,
                    r.toString());
            assertEquals("0", r.get("broker_dead_letters"), "the broker refused nothing: " + r);
            assertEquals("0", r.get("broker_stale_opens"), r.toString());
            // the broker timed how late it read each round's OPENED event
            double lag = CsvTable.number(r, "broker_opened_lag_ms");
            assertTrue(lag >= 0 && Double.isFinite(lag), "the broker's OPENED lag: " + r);
            // this JVM's GC pauses in the measured rounds: the longest is part of their sum
            assertTrue(CsvTable.number(r, "gc_pauses") >= 0, r.toString());
            assertTrue(CsvTable.number(r, "gc_max_ms") <= CsvTable.number(r, "gc_ms") + 1e-3, r.toString());
            // a partition each (at least the default count), and none claimed by two consumers
            assertEquals("1", r.get("agents_per_partition"), r.toString());
            assertTrue(CsvTable.number(r, "task_partitions") >= CsvTable.number(r, "agents"), r.toString());
            assertEquals("0", r.get("partitions_claimed_twice"), r.toString());
            // by default the jobs' trainers read gradients through one trainer host
            assertEquals("host", r.get("trainers"), r.toString());
        }
        CsvTable rounds = CsvTable.read(out.resolve("fleet-rounds.csv"));
        assertEquals(List.of(FleetReport.ROUNDS_CSV_HEADER.split(",")), rounds.header());
        for (Map<String, String> r : csv) {
            List<Map<String, String>> measured = rounds.rows().stream()
                    .filter(o -> o.get("agents").equals(r.get("agents"))
                            && o.get("allocation").equals(r.get("allocation")))
                    .toList();
            assertEquals(
                    List.of("4", "5", "6", "7"),
                    measured.stream().map(o -> o.get("round")).toList(),
                    "the rounds after the 3 warm-up rounds: " + r);
            assertTrue(measured.stream().allMatch(o -> o.get("job").equals("job-0001")), measured.toString());
            assertEquals(0, CsvTable.number(measured.get(0), "closed_s"), measured.toString());
            // ready (assignment read, model version there) comes before the start, up to the model
            // cache's listener running a moment after the cache took the version
            assertTrue(
                    measured.stream().allMatch(o -> Double.isFinite(CsvTable.number(o, "ready_ms"))),
                    measured.toString());
            assertTrue(CsvTable.number(r, "ready_p50_ms") <= CsvTable.number(r, "p50_ms") + 1, r.toString());
            // ready is the later of the assignments' read and their model version's arrival
            assertTrue(
                    measured.stream()
                            .allMatch(o -> CsvTable.number(o, "assigned_ms") <= CsvTable.number(o, "ready_ms")),
                    measured.toString());
            // the GC pause time inside a round's overhead is part of it (none if the next round
            // started before the close's commit returned: pipelined, the overhead can be negative)
            assertTrue(
                    measured.stream()
                            .allMatch(o -> CsvTable.number(o, "gc_ms") >= 0
                                    && CsvTable.number(o, "gc_ms")
                                            <= Math.max(0, CsvTable.number(o, "overhead_ms")) + 1e-3),
                    measured.toString());
        }
        byte[] png = Files.readAllBytes(out.resolve("overhead-by-agents.png"));
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, Arrays.copyOf(png, 4));
        assertTrue(
                run.out().contains("outputs in " + out + ": fleet.csv, fleet-rounds.csv, overhead-by-agents.png"),
                run.transcript());
    }

    /** Groups of agents sharing a partition, as a multi-device agent's workers: the same accounting. */
    @Test
    void measuresAgentsSharingTaskPartitions() throws Exception {
        CliRun run = CliRun.of(
                "bench-fleet",
                "--agents",
                "8",
                "--jobs",
                "1",
                "--warmup",
                "3",
                "--rounds",
                "4",
                "--allocation",
                "pipelined",
                "--agents-per-partition",
                "4",
                "--trainers",
                "own",
                "--out",
                out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        List<Map<String, String>> csv = CsvTable.read(out.resolve("fleet.csv")).rows();
        assertEquals(1, csv.size(), csv.toString());
        Map<String, String> r = csv.get(0);
        assertEquals("4", r.get("agents_per_partition"), r.toString());
        assertEquals("true", r.get("complete"), r.toString());
        assertEquals("0", r.get("dead_letters"), r.toString());
        assertEquals("0", r.get("broker_dead_letters"), r.toString());
        // each group's agents run the tasks planned for them, on the partition they share
        assertTrue(Integer.parseInt(r.get("tasks_completed")) >= 8 * 7, r.toString());
        // the agents of a group name one reader: the broker sees no partition claimed twice
        assertEquals("0", r.get("partitions_claimed_twice"), r.toString());
        assertTrue(CsvTable.number(r, "task_partitions") >= 2, r.toString());
        // its trainer read gradients with a consumer of its own, as asked
        assertEquals("own", r.get("trainers"), r.toString());
    }

    @Test
    void refusesUnknownTrainers() {
        CliRun run = CliRun.of("bench-fleet", "--trainers", "shared");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("--trainers must be host or own, was 'shared'"), run.transcript());
    }

    @Test
    void refusesAnUnknownAllocation() {
        CliRun run = CliRun.of("bench-fleet", "--allocation", "at-open,eager");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("--allocation takes at-open and pipelined, was 'eager'"), run.transcript());
    }

    @Test
    void refusesAgentsPerPartitionThatDoNotDivideAClient() {
        CliRun run = CliRun.of("bench-fleet", "--agents-per-partition", "3");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("agents per partition must divide the agents per client (64)"), run.transcript());
    }

    /**
     * The failover on a tiny load: two broker processes keeping standby replicas, one killed; the
     * jobs the survivor takes over close rounds again. (The restart of a lone instance runs the same
     * code but for the second process.)
     */
    @Test
    void measuresAFailoverToAStandbyInstance() throws Exception {
        CliRun run = CliRun.of(
                "bench-fleet",
                "--agents",
                "4",
                "--restore",
                "2",
                "--only",
                "restore",
                "--instances",
                "2",
                "--out",
                out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        assertTrue(run.out().contains("Failover after kill -9 of one of 2 broker instances"), run.transcript());
        List<String> csv = Files.readAllLines(out.resolve("restore.csv"));
        assertEquals(
                "instances,agents,jobs,rounds_before,running_s,first_round_s,all_jobs_s,jobs_progressed,live_jobs,"
                        + "restore_from_s,restore_to_s,restored_records,class_data_sharing",
                csv.get(0));
        String[] f = csv.get(1).split(",");
        assertEquals(List.of("2", "4", "2"), List.of(f[0], f[1], f[2]), csv.get(1));
        assertTrue(Long.parseLong(f[3]) >= 6, "each job closed its rounds before the kill: " + csv.get(1));
        assertEquals("NaN", f[4], "no new process in a failover");
        double allJobs = Double.parseDouble(f[6]);
        assertTrue(allJobs > 0 && allJobs < 300, "every live job closed a round after the kill: " + csv.get(1));
        assertEquals(f[8], f[7], "every live job progressed: " + csv.get(1));
        assertEquals("off", f[12], "a failover starts no JVM after the kill: " + csv.get(1));
    }

    /**
     * The restart of a lone instance after kill -9: its new process restores every store from the
     * changelogs (exactly-once drops the local state of a process that did not close) and says what
     * each took, and the jobs close rounds again.
     */
    @Test
    void measuresARestartAndWhatRestoringEachStoreTook() throws Exception {
        CliRun run = CliRun.of(
                "bench-fleet", "--agents", "4", "--restore", "2", "--only", "restore", "--out", out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        assertTrue(run.out().contains("Restore after kill -9 of the broker"), run.transcript());
        Map<String, String> r = CsvTable.read(out.resolve("restore.csv")).rows().get(0);
        assertEquals(r.get("live_jobs"), r.get("jobs_progressed"), "every live job progressed: " + r);
        double running = CsvTable.number(r, "running_s");
        double from = CsvTable.number(r, "restore_from_s");
        double to = CsvTable.number(r, "restore_to_s");
        assertTrue(0 < from && from <= to && to < running, "the restore lies within the new process's start: " + r);
        // the JVM starts after the kill: a round the new broker planned closes after its restore
        assertTrue(CsvTable.number(r, "first_round_s") > to, "no round closed on the dead broker's plan counts: " + r);
        // at least the two jobs' records and their workers' (4 agents each); the membership too
        assertTrue(Long.parseLong(r.get("restored_records")) >= 2 + 2 * 4, r.toString());
        // asked for by default; the JDK archives no class path of directories (a build's classes), which
        // a run from the distribution jar does not have: either way the table says which
        String sharing = r.get("class_data_sharing");
        assertTrue(
                run.out().contains("new process (class-data sharing " + sharing),
                "the table says whether the new process shared classes: " + run.transcript());
        for (String store : List.of("jobs", "job-workers")) {
            assertTrue(
                    run.out().lines().anyMatch(l -> l.trim().startsWith(store + " ") && l.contains(" records ")),
                    "the restore of store " + store + " is shown: " + run.transcript());
        }
    }

    @Test
    void theRestoreRunsOneOrTwoInstances() {
        CliRun run = CliRun.of("bench-fleet", "--restore", "10", "--only", "restore", "--instances", "3");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(
                run.err().contains("--restore measures one instance restarted or two (a failover), not --instances 3"),
                run.transcript());
    }
}
