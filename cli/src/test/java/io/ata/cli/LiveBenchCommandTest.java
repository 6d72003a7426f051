package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.testsupport.EndToEnd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata bench-live} end to end, tiny: a real embedded broker, broker, trainer and agents. It
 * checks what the command reports and writes, never the figures (speed is not asserted in tests).
 */
@EndToEnd
class LiveBenchCommandTest {

    @TempDir
    Path out;

    @Test
    void measuresEveryRoundOfEachFleetUnderEachAllocationAndWritesThemWithTheirDistribution() throws Exception {
        CliRun run = CliRun.of(
                "bench-live",
                "--only",
                "overhead",
                "--fleets",
                "2,3",
                "--warmup",
                "3",
                "--rounds",
                "6",
                "--out",
                out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        List<String> fleetLines = run.out()
                .lines()
                .filter(l -> l.matches("^[23] +(at-open|pipelined) +6 .*"))
                .toList();
        assertEquals(4, fleetLines.size(), "each fleet planned at open and pipelined: " + run.transcript());
        for (String line : fleetLines) {
            double[] figures = Arrays.stream(line.trim().split(" +"))
                    .skip(3)
                    .mapToDouble(Double::parseDouble)
                    .toArray();
            double[] ordered = figures.clone();
            Arrays.sort(ordered);
            assertArrayEquals(ordered, figures, "p50 <= p90 <= p99 <= max: " + line);
            // planned at open, the assignment comes after the close; pipelined, it is there, and the
            // agents start on the model as written, often before the trainer's commit returns (0)
            assertTrue(line.contains("at-open") ? figures[0] > 0 : figures[0] >= 0, line);
        }

        List<Map<String, String>> rows =
                CsvTable.read(out.resolve("overhead.csv")).rows();
        assertEquals(24, rows.size(), "6 measured rounds for each of 2 fleets under each of 2 allocations");
        for (String mode : List.of("at-open", "pipelined")) {
            assertEquals(
                    List.of("4", "5", "6", "7", "8", "9"),
                    rows.stream()
                            .filter(r -> r.get("agents").equals("3")
                                    && r.get("allocation").equals(mode))
                            .map(r -> r.get("round"))
                            .toList(),
                    "the rounds after the 3 warm-up rounds, " + mode);
        }
        // zero when the last agent started before the trainer's thread was back from its commit
        assertTrue(rows.stream().allMatch(r -> CsvTable.number(r, "overhead_ms") >= 0), rows.toString());
        byte[] png = Files.readAllBytes(out.resolve("overhead-cdf.png"));
        assertArrayEquals(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, Arrays.copyOf(png, 4));
        assertTrue(run.out().contains("outputs in " + out + ": overhead.csv, overhead-cdf.png"), run.transcript());
    }

    /**
     * The overhead ratio, and the same live rounds against their own draws played back to back: the
     * draws take less than the live rounds (two exactly-once hops a round), and the overhead's parts
     * add up to it.
     */
    @Test
    void takesTheLiveRoundsApartAgainstTheirOwnDrawsPlayedBackToBack() throws Exception {
        CliRun run = CliRun.of(
                "bench-live",
                "--only",
                "ratio",
                "--ratio-policies",
                "fta",
                "--allocation",
                "pipelined",
                "--ratio-warmup",
                "2",
                "--ratio-rounds",
                "6",
                "--out",
                out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        List<String[]> lines = run.out()
                .lines()
                .filter(l -> l.startsWith("fta "))
                .map(l -> l.trim().split(" +"))
                .toList();
        assertEquals(2, lines.size(), "the ratio's row and the breakdown's: " + run.transcript());
        double[] ratio = Arrays.stream(lines.get(0))
                .skip(3)
                .mapToDouble(Double::parseDouble)
                .toArray();
        assertEquals(ratio[0] / ratio[1], ratio[2], 0.001, "live / simulated: " + run.transcript());
        double[] parts = Arrays.stream(lines.get(1))
                .skip(2)
                .mapToDouble(Double::parseDouble)
                .toArray();
        double live = parts[0];
        double draws = parts[1];
        double overhead = parts[3];
        assertTrue(
                draws > 0 && draws < live,
                "the draws back to back take less than the live rounds: " + run.transcript());
        assertEquals(live / draws, parts[2], 0.002, "live / draws: " + run.transcript());
        assertEquals(live - draws, overhead, 0.1, run.transcript());
        assertTrue(parts[4] > 0, "the trainer's close takes time: " + run.transcript());
        assertEquals(
                overhead, parts[4] + parts[5] + parts[6] + parts[7], 0.05, "the parts add up: " + run.transcript());
        assertEquals(6, CsvTable.read(out.resolve("ratio.csv")).rows().size(), run.transcript());
    }

    /** The same fleet of workers, run as agents of two workers over one consumer each. */
    @Test
    void measuresAFleetOfMultiDeviceAgents() throws Exception {
        CliRun run = CliRun.of(
                "bench-live",
                "--only",
                "overhead",
                "--fleets",
                "4",
                "--workers-per-agent",
                "2",
                "--allocation",
                "pipelined",
                "--warmup",
                "3",
                "--rounds",
                "4",
                "--out",
                out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        assertTrue(run.out().contains("(each agent runs 2 workers over one consumer"), run.transcript());
        List<Map<String, String>> rows =
                CsvTable.read(out.resolve("overhead.csv")).rows();
        assertEquals(
                List.of("4", "5", "6", "7"),
                rows.stream().map(r -> r.get("round")).toList(),
                rows.toString());
        assertTrue(rows.stream().allMatch(r -> r.get("workers_per_agent").equals("2")), rows.toString());
        assertTrue(rows.stream().allMatch(r -> CsvTable.number(r, "overhead_ms") >= 0), rows.toString());
    }

    @Test
    void refusesWorkersPerAgentThatDoNotDivideAFleet() {
        CliRun run = CliRun.of("bench-live", "--only", "overhead", "--fleets", "8,12", "--workers-per-agent", "8");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(
                run.err().contains("--workers-per-agent must divide every fleet size, 8 does not divide 12"),
                run.transcript());
    }

    @Test
    void concurrentJobsAreMeasuredOnOneInstanceAndTheLargestLoadOnTwo() {
        CliRun run =
                CliRun.of("bench-live", "--only", "jobs", "--jobs", "1,3", "--job-warmup", "2", "--job-rounds", "5");

        assertEquals(0, run.exitCode(), run.transcript());
        List<String> loads =
                run.out().lines().filter(l -> l.matches("^[13] +[12] .*")).toList();
        assertEquals(3, loads.size(), "1 job and 3 jobs on one instance, 3 jobs on two: " + run.transcript());
        for (String line : loads) {
            String[] f = line.trim().split(" +");
            int jobs = Integer.parseInt(f[0]);
            // every measured round but the first closes inside the window
            assertEquals(jobs * 5 - 1, Integer.parseInt(f[2]), line);
            double p50 = Double.parseDouble(f[5]);
            double p99 = Double.parseDouble(f[6]);
            assertTrue(p50 > 0 && p50 <= p99, "0 < p50 <= p99: " + line);
            assertTrue(Double.parseDouble(f[4]) > 0, "rounds per second: " + line);
        }
        assertTrue(run.out().contains("two instances / one at 3 jobs:"), run.transcript());
        assertTrue(
                run.out().lines().anyMatch(l -> l.matches("^floor: .* 200 times: p50 [0-9.]+ ms, p99 [0-9.]+ ms$")),
                "the transactional floor is printed in the same run: " + run.transcript());
    }

    @Test
    void refusesAnUnknownPart() {
        CliRun run = CliRun.of("bench-live", "--only", "everything");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("--only must be overhead, ratio, policies or jobs"), run.transcript());
    }

    @Test
    void refusesAnUnknownAllocation() {
        CliRun run = CliRun.of("bench-live", "--allocation", "eager");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("--allocation takes at-open and pipelined, was 'eager'"), run.transcript());
    }

    @Test
    void theCdfIsTheFractionOfRoundsAtOrBelowEachValue() {
        var curve = LiveBenchCommand.cdf("8 agents", new double[] {3, 5, 5, 9});
        assertArrayEquals(new double[] {3, 5, 5, 9}, curve.x());
        assertArrayEquals(new double[] {0.25, 0.5, 0.75, 1.0}, curve.y());
    }
}
