package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The summary.csv and the table of {@code ata demo}, to the character. */
class LiveReportsTest {
    private static final List<LiveJobSummary> JOBS = List.of(
            new LiveJobSummary(
                    "ata-auto",
                    "demo-ata-auto",
                    150,
                    20.4321,
                    134.94,
                    120.5,
                    42_512.5,
                    0,
                    1200,
                    1200,
                    0,
                    0,
                    0.013912345,
                    "timings-demo-ata-auto.csv"),
            new LiveJobSummary(
                    "gta",
                    "demo-gta",
                    150,
                    13.5,
                    86.04,
                    80.25,
                    29_200,
                    80_200,
                    3254,
                    1200,
                    387,
                    1667,
                    0.0139,
                    "timings-demo-gta.csv"),
            new LiveJobSummary(
                    "a,b",
                    "demo-a-b",
                    0,
                    0.25,
                    Double.NaN,
                    Double.NaN,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    Double.NaN,
                    "timings-demo-a-b.csv"));

    @Test
    void tableWithARuleUnderItsHeader() {
        assertEquals("""
                policy    rounds  wall time  mean round  mean round, last 4/5  worker time   wasted work  final subopt.
                -------------------------------------------------------------------------------------------------------
                ata-auto     150     20.4 s    134.9 ms              120.5 ms       42.5 s    0.0 s (0%)        0.01391
                gta          150     13.5 s     86.0 ms               80.3 ms      109.4 s  80.2 s (73%)        0.01390
                a,b            0      0.3 s      NaN ms                NaN ms        0.0 s    0.0 s (0%)            NaN
                """, LiveResultTable.format(JOBS));
    }

    @Test
    void theSettledColumnNamesItsRoundsWhenEveryJobRanAsMany() {
        assertEquals("mean round 31-150", LiveResultTable.steadyColumn(JOBS.subList(0, 2)));
        assertEquals("mean round, last 4/5", LiveResultTable.steadyColumn(JOBS), "the jobs ran 150, 150 and 0");
    }

    @Test
    void theSettledMeanLeavesOutTheFirstFifthOfTheRounds() {
        assertEquals(31, SteadyRoundTime.firstRound(150));
        assertEquals(3, SteadyRoundTime.firstRound(10));
        // rounds 1-2 of 10 (slow, exploring) are left out
        assertEquals(10.0, SteadyRoundTime.meanMs(new double[] {500, 400, 10, 10, 10, 10, 10, 10, 10, 10}));
        assertEquals(7.0, SteadyRoundTime.meanMs(new double[] {7}), "one round: the first fifth is none");
        assertTrue(Double.isNaN(SteadyRoundTime.meanMs(new double[0])));
    }

    @Test
    void summaryCsvHasOneRowPerJob(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("summary.csv");
        LiveSummaryCsv.write(file, 12, 8, JOBS);
        assertEquals(
                String.join(",", LiveSummaryCsv.COLUMNS) + "\n"
                        + "ata-auto,demo-ata-auto,12,8,150,20.4321,134.94,31,120.5,42512.5,42512.5,0,0,1200,1200,0,0,"
                        + "0.013912345,timings-demo-ata-auto.csv\n"
                        + "gta,demo-gta,12,8,150,13.5,86.04,31,80.25,109400,29200,80200,0.7330895795246801,3254,1200,387,1667,"
                        + "0.0139,timings-demo-gta.csv\n"
                        + "\"a,b\",demo-a-b,12,8,0,0.25,,1,,0,0,0,0,0,0,0,0,,timings-demo-a-b.csv\n",
                Files.readString(file));
        assertEquals(
                "policy,job,agents,batch,rounds,wall_time_s,mean_round_time_ms,steady_from_round,"
                        + "steady_mean_round_time_ms,total_worker_time_ms,"
                        + "accepted_worker_time_ms,wasted_worker_time_ms,wasted_fraction,tasks_run,tasks_accepted,"
                        + "tasks_late,tasks_cancelled,final_suboptimality,timings_file",
                String.join(",", LiveSummaryCsv.COLUMNS));
    }
}
