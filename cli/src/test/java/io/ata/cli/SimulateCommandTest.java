package io.ata.cli;

import static io.ata.cli.CsvTable.number;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code ata simulate} end to end on a small fleet: files, numbers, and errors a user can read. */
class SimulateCommandTest {
    private static final List<String> DEFAULT_POLICIES = List.of("fta", "gta", "uta", "ata", "ata-empirical");
    private static final int WORKERS = 9;

    @TempDir
    Path dir;

    private CliRun simulate(String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "simulate",
                "--workers",
                "" + WORKERS,
                "--batch",
                "5",
                "--rounds",
                "3000",
                "--threads",
                "2",
                "--out",
                dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(args.toArray(String[]::new));
    }

    /** {@code ata simulate} of the fleet of a scenario file, without charts, into {@code out}; then {@code more}. */
    private static CliRun simulateScenario(Path scenario, Path out, String... more) {
        List<String> args = new ArrayList<>(
                List.of("simulate", "--scenario", scenario.toString(), "--no-charts", "--out", out.toString()));
        args.addAll(List.of(more));
        return CliRun.of(args.toArray(String[]::new));
    }

    @Test
    void writesEveryOutputWithThePapersOrdering() throws IOException {
        CliRun run = simulate();
        assertEquals(0, run.exitCode(), run.transcript());

        CsvTable summary = OutputFiles.checkAll(dir, DEFAULT_POLICIES);
        CsvTable series = CsvTable.read(dir.resolve("series.csv"));
        List<Map<String, String>> ataSeries = series.rowsWhere("policy", "ata");
        assertTrue(ataSeries.size() > 100, "every round to 100, then sampled");
        assertEquals("3000", ataSeries.get(ataSeries.size() - 1).get("round"));
        Map<String, String> fta = summary.row("policy", "fta");
        Map<String, String> uta = summary.row("policy", "uta");
        Map<String, String> gta = summary.row("policy", "gta");
        assertTrue(number(fta, "mean_round_time") < number(uta, "mean_round_time"), "FTA is faster than UTA");
        // GTA keeps every worker busy for the whole round
        double expectedBusy = WORKERS * number(gta, "mean_round_time");
        assertEquals(expectedBusy, number(gta, "mean_busy_time"), 1e-6 * expectedBusy);
        assertEquals("9", fta.get("workers"));
        assertEquals("5", fta.get("batch"));
        assertEquals(3000, number(fta, "rounds"));
        assertEquals("paper", summary.row("policy", "ata").get("constants"));
        assertEquals("-", fta.get("constants"));

        assertTrue(run.out().contains("mean round time"), run.out());
        assertTrue(run.out().matches("(?s).*\\d\\.\\d{3}e[+-]\\d{2}.*"), "numbers like 5.849e+08: " + run.out());
        assertTrue(run.out().contains(dir.toAbsolutePath().normalize().toString()), "names the output directory");

        String runFile = Files.readString(dir.resolve("run.txt"));
        assertTrue(runFile.contains("(measured from the time model"), runFile);
        assertTrue(runFile.contains("wall time:"), runFile);
        assertTrue(runFile.matches("(?s).*\\n  seed: +5\\n.*"), "one seed is 'seed: 5': " + runFile);
    }

    @Test
    void severalSeedsGiveSpread() throws IOException {
        CliRun run = simulate("--seeds", "3", "--policies", "fta,ata", "--no-charts");
        assertEquals(0, run.exitCode(), run.transcript());

        CsvTable summary = CsvTable.read(dir.resolve("summary.csv"));
        Map<String, String> ata = summary.row("policy", "ata");
        assertEquals("3", ata.get("seeds"));
        for (String sd : List.of(
                "runtime_sd",
                "total_worker_time_sd",
                "mean_round_time_sd",
                "mean_busy_time_sd",
                "avg_proxy_regret_sd")) {
            assertTrue(number(ata, sd) > 0, sd + " > 0");
        }
        CsvTable runs = CsvTable.read(dir.resolve("runs.csv"));
        assertEquals(
                List.of("5", "6", "7"),
                runs.rowsWhere("policy", "ata").stream().map(r -> r.get("seed")).toList());
        assertFalse(Files.exists(dir.resolve("panels.png")), "--no-charts");
        String runFile = Files.readString(dir.resolve("run.txt"));
        assertTrue(runFile.contains("seeds: ") && runFile.contains("5..7 (3 seeds)"), runFile);
    }

    @Test
    void userConstantsAreReportedAsSuch() throws IOException {
        CliRun run = simulate("--policies", "ata,ata-empirical", "--alpha", "123.5", "--eta", "0.75", "--no-charts");
        assertEquals(0, run.exitCode(), run.transcript());
        CsvTable summary = CsvTable.read(dir.resolve("summary.csv"));
        assertTrue(summary.row("policy", "ata").get("description").contains("alpha=123.5"));
        assertTrue(summary.row("policy", "ata").get("description").contains("(user)"));
        assertTrue(Files.readString(dir.resolve("run.txt")).contains("123.5 (given by the user)"));
    }

    @Test
    void scenarioFixesTheWorkers() throws IOException {
        Path scenario = dir.resolve("fleet.yaml");
        Files.writeString(scenario, """
                unit: ms
                groups:
                  - name: fast
                    count: 3
                    time: {family: shifted-exponential, shift: 10, mean: 10}
                  - name: slow
                    count: 2
                    time: {family: uniform, min: 50, max: 150}
                """);
        Path out = dir.resolve("out");
        CliRun run =
                simulateScenario(scenario, out, "--batch", "4", "--rounds", "2000", "--policies", "fta,uta,ata-auto");
        assertEquals(0, run.exitCode(), run.transcript());
        assertEquals(
                "5",
                CsvTable.read(out.resolve("summary.csv")).row("policy", "fta").get("workers"));
        assertTrue(Files.readString(out.resolve("run.txt")).contains("slow-2: uniform(50.0, 150.0)"));
        assertTrue(run.out().contains("times in ms;"), "the scenario's unit reaches the output: " + run.out());

        CliRun conflicting =
                CliRun.of("simulate", "--scenario", scenario.toString(), "--workers", "7", "--out", out.toString());
        assertEquals(2, conflicting.exitCode(), conflicting.transcript());
        assertTrue(conflicting.err().contains("defines 5 workers"), conflicting.err());

        CliRun both = CliRun.of("simulate", "--scenario", scenario.toString(), "--time-model", "log");
        assertEquals(2, both.exitCode(), both.transcript());
        assertTrue(both.err().contains("mutually exclusive"), both.err());
    }

    @Test
    void theExampleFleetsThatChangeRun() throws IOException {
        for (String example : List.of("slowdown", "slowdown-after", "speedup", "speedup-after", "coldstart")) {
            Path out = dir.resolve(example);
            CliRun run = simulateScenario(
                    Path.of("..", "deploy", "examples", example + ".yaml"),
                    out,
                    "--rounds",
                    "50",
                    "--policies",
                    "fta,ata-auto,ata-auto-no-drift");
            assertEquals(0, run.exitCode(), run.transcript());
        }
        assertTrue(
                Files.readString(dir.resolve("slowdown").resolve("run.txt"))
                        .contains(
                                "1: 29.0 + exponential(mean=29.0) (mean 58); after round 2000: 290.0 + exponential(mean=290.0)"));
    }

    @Test
    void workersJoinAndLeaveAndAnEmptyFleetIsAnError() throws IOException {
        Path scenario = dir.resolve("churn.yaml");
        Files.writeString(scenario, """
                workers:
                  - name: early
                    time: {family: constant, value: 10}
                    leave_after_round: 100
                  - name: late
                    time: {family: constant, value: 20}
                    join_after_round: 50
                """);
        Path out = dir.resolve("out");
        CliRun run = simulateScenario(scenario, out, "--batch", "2", "--rounds", "200", "--policies", "uta,ata-auto");
        assertEquals(0, run.exitCode(), run.transcript());
        // rounds 1-50: early alone (2 x 10), 51-100: uta splits 1 + 1 (20), 101-200: late alone (2 x 20)
        double expected = (50 * 20 + 50 * 20 + 100 * 40) / 200.0;
        assertEquals(
                expected, number(CsvTable.read(out.resolve("summary.csv")).row("policy", "uta"), "mean_round_time"));

        Files.writeString(scenario, """
                workers:
                  - name: only
                    time: {family: constant, value: 10}
                    leave_after_round: 5
                """);
        CliRun empty = simulateScenario(scenario, out, "--rounds", "10");
        assertNotEquals(0, empty.exitCode(), empty.transcript());
        assertTrue(empty.err().contains("no worker takes part in round 6"), empty.err());
    }

    @Test
    void bothStatisticsAgesRunEveryPolicyTwiceOnTheSameDurations() throws IOException {
        CliRun run = simulate("--policies", "fta,ata", "--statistics", "both", "--no-charts");
        assertEquals(0, run.exitCode(), run.transcript());

        CsvTable summary = CsvTable.read(dir.resolve("summary.csv"));
        assertEquals(
                List.of("fta", "fta@stale", "ata", "ata@stale"),
                summary.rows().stream().map(r -> r.get("policy")).toList());
        // fta plans without statistics: stale or fresh, the same rounds on the same durations
        assertEquals(
                summary.row("policy", "fta").get("runtime"),
                summary.row("policy", "fta@stale").get("runtime"));
        assertNotEquals(
                summary.row("policy", "ata").get("runtime"),
                summary.row("policy", "ata@stale").get("runtime"));
        assertTrue(Files.readString(dir.resolve("run.txt")).matches("(?s).*\\n  statistics: +both\\n.*"));
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "--statistics | old         | expected fresh, stale or both, was 'old'",
                "--policies   | fta,fastest | unknown policy 'fastest'",
                "--time-model | cubic       | unknown time model 'cubic'",
            })
    void anUnknownNameIsAUsageErrorNamingIt(String option, String value, String expected) {
        CliRun run = simulate(option, value);
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains(expected), run.err());
        assertFalse(Files.exists(dir.resolve("summary.csv")));
    }

    @Test
    void badNumbersAreUsageErrors() {
        assertEquals(2, simulate("--rounds", "0").exitCode());
        assertEquals(2, simulate("--alpha", "-1").exitCode());
        assertEquals(2, simulate("--constants", "experiments", "--eta", "2").exitCode());
        CliRun run = simulate("--constants", "guess");
        assertEquals(2, run.exitCode());
        assertTrue(run.err().contains("paper or experiments"), run.err());
    }

    @Test
    void aBrokerErrorIsOneClearLine() throws IOException {
        Path scenario = dir.resolve("typo.yaml");
        Files.writeString(scenario, "groups:\n  - name: gpu\n    count: 2\n    time: {family: exponentail, mean: 3}\n");
        CliRun run = CliRun.of(
                "simulate",
                "--scenario",
                scenario.toString(),
                "--out",
                dir.resolve("o").toString());
        assertEquals(1, run.exitCode(), run.transcript());
        assertEquals(1, run.err().lines().count(), "one line: " + run.err());
        assertTrue(run.err().startsWith("ata simulate: error: "), run.err());
        assertTrue(run.err().contains("unknown family 'exponentail'"), run.err());

        CliRun verbose = CliRun.of("simulate", "--scenario", scenario.toString(), "--verbose");
        assertEquals(1, verbose.exitCode());
        assertTrue(verbose.err().contains("\tat io.ata."), "stack trace with --verbose: " + verbose.err());
    }

    @Test
    void missingScenarioFileIsNamed() {
        CliRun run =
                CliRun.of("simulate", "--scenario", dir.resolve("none.yaml").toString());
        assertNotEquals(0, run.exitCode());
        assertTrue(run.err().contains("none.yaml") && run.err().contains("no such file"), run.err());
    }

    @Test
    void noCommandIsAUsageError() {
        CliRun run = CliRun.of();
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("simulate, replay, bench"), run.err());
    }
}
