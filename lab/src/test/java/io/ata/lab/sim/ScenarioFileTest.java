package io.ata.lab.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.timinglog.TimingLogWriter;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.lab.timinglog.TimingRecord.Status;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeSchedule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ScenarioFileTest {

    @TempDir
    Path dir;

    private static final String EVERY_FAMILY = """
            # times in any unit, the same unit as the outputs
            groups:
              - name: gpu            # workers gpu-1..gpu-3
                count: 3
                time: {family: shifted-exponential, shift: 20, mean: 20}
              - name: cpu
                count: 2
                time: {family: log-normal, mean: 300, sd: 120, shift: 50}
              - name: ln
                count: 1
                time: {family: log-normal, mu: 1.5, sigma: 0.5}
              - name: exp
                count: 1
                time: {family: exponential, mean: 7}
              - name: uni
                count: 1
                time: {family: uniform, min: 2, max: 8, shift: 1}
              - name: hn
                count: 1
                time: {family: half-normal, sigma: 10}
              - name: gs
                count: 1
                time: {family: gamma, shape: 2, scale: 3}
              - name: gm
                count: 1
                time: {family: gamma, shape: 0.5, mean: 12, shift: 4}
              - name: replayed
                count: 2
                time: {family: empirical, log: logs/timings.csv, worker: w7}
              - name: pooled
                count: 1
                time: {family: empirical, log: logs/timings.csv}
            workers:
              - name: special
                time: {family: constant, value: 100}
              - name: ten
                time: {family: constant, value: 6, shift: 4}
            """;

    /** w7: 1, 2, 3, 10 (and a cancelled 1000); w8: 50, 70. Pooled mean = 136/6. */
    private void writeLog() throws IOException {
        Files.createDirectories(dir.resolve("logs"));
        TimingLogWriter.write(
                dir.resolve("logs/timings.csv"),
                List.of(
                        new TimingRecord("w7", 1),
                        new TimingRecord("w8", 50),
                        new TimingRecord("w7", 2),
                        new TimingRecord("w7", 1000, null, null, null, Status.CANCELLED),
                        new TimingRecord("w7", 3),
                        new TimingRecord("w8", 70),
                        new TimingRecord("w7", 10)));
    }

    private Path write(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    @Test
    void everyFamilyGivesTheConfiguredMeans() throws IOException {
        writeLog();
        Scenario s = ScenarioFile.load(write("fleet.yaml", EVERY_FAMILY));

        assertEquals(
                List.of(
                        "gpu-1",
                        "gpu-2",
                        "gpu-3",
                        "cpu-1",
                        "cpu-2",
                        "ln-1",
                        "exp-1",
                        "uni-1",
                        "hn-1",
                        "gs-1",
                        "gm-1",
                        "replayed-1",
                        "replayed-2",
                        "pooled-1",
                        "special",
                        "ten"),
                s.workerNames());
        assertEquals(16, s.workerCount());

        double[] expected = {
            40,
            40,
            40, // 20 + Exp(mean 20)
            350,
            350, // 50 + log-normal with mean 300
            Math.exp(1.5 + 0.125), // exp(mu + sigma^2/2)
            7,
            1 + 5, // 1 + U(2, 8)
            10 * Math.sqrt(2 / Math.PI),
            6, // shape * scale
            4 + 12,
            4,
            4, // mean of 1, 2, 3, 10 (the cancelled 1000 is left out)
            136.0 / 6, // all six usable durations pooled
            100,
            10
        };
        assertArrayEquals(expected, s.means(), 1e-9);

        // the samples, not only the declared means, must match the configuration
        SplittableRandom rng = new SplittableRandom(2025);
        TaskTimeDistribution[] d = s.distributions();
        int n = 400_000;
        for (int i = 0; i < d.length; i++) {
            double sum = 0;
            double sumSq = 0;
            double min = Double.POSITIVE_INFINITY;
            for (int k = 0; k < n; k++) {
                double x = d[i].sample(rng);
                sum += x;
                sumSq += x * x;
                min = Math.min(min, x);
            }
            double mean = sum / n;
            double sd = Math.sqrt(Math.max(0, sumSq / n - mean * mean));
            String who = s.workerNames().get(i);
            assertEquals(expected[i], mean, 5 * sd / Math.sqrt(n) + 1e-9, who + " sample mean");
            if (who.equals("cpu-1")) {
                assertEquals(120, sd, 3, "cpu-1 sample sd");
                assertTrue(min >= 50, "cpu-1 draws include the shift");
            }
            if (who.startsWith("gpu")) {
                assertEquals(20, sd, 0.5, "gpu sample sd (of the exponential part)");
                assertTrue(min >= 20, "gpu draws include the shift");
            }
            if (who.equals("uni-1")) {
                assertTrue(min >= 3, "uniform min + shift");
            }
            if (who.startsWith("replayed")) {
                assertInstanceOf(TaskTimeDistribution.Empirical.class, d[i]);
                assertArrayEquals(new double[] {1, 2, 3, 10}, ((TaskTimeDistribution.Empirical) d[i]).values());
            }
        }
    }

    @Test
    void jsonScenario() throws IOException {
        Path f = write("fleet.json", """
                {"workers": [{"name": "a", "time": {"family": "exponential", "mean": 3}}],
                 "groups": [{"name": "g", "count": 2, "time": {"family": "uniform", "min": 0, "max": 2}}]}
                """);
        Scenario s = ScenarioFile.load(f);
        assertEquals(List.of("a", "g-1", "g-2"), s.workerNames()); // file order
        assertArrayEquals(new double[] {3, 1, 1}, s.means(), 1e-12);
        assertNull(s.timeUnit(), "a scenario without 'unit' leaves it to the reader");
    }

    @Test
    void theUnitIsKeptForTheReports() throws IOException {
        Path f = write("ms.yaml", "unit: ms\nworkers: [{name: a, time: {family: constant, value: 4}}]\n");
        assertEquals("ms", ScenarioFile.load(f).timeUnit());
    }

    private String error(String yaml) throws IOException {
        Path f = write("bad.yaml", yaml);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ScenarioFile.load(f));
        if (Boolean.getBoolean("ata.test.printErrors")) {
            System.out.println(e.getMessage());
        }
        assertTrue(e.getMessage().contains("bad.yaml"), "names the file: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void unknownFamilyListsTheKnownOnes() throws IOException {
        String m = error("""
                groups:
                  - name: gpu
                    count: 2
                    time: {family: weibull, shape: 2}
                """);
        assertTrue(m.contains("group 'gpu'"), m);
        assertTrue(m.contains("unknown family 'weibull'"), m);
        for (String f : ScenarioFile.FAMILIES) {
            assertTrue(m.contains(f), "lists " + f + ": " + m);
        }
    }

    /** A bad scenario (flow-style YAML) and what its error message must say besides the file's name. */
    record Bad(String yaml, List<String> says) {
        @Override
        public String toString() {
            return yaml;
        }
    }

    private static Bad bad(String yaml, String... says) {
        return new Bad(yaml, List.of(says));
    }

    private void assertRejected(Bad scenario) throws IOException {
        String m = error(scenario.yaml());
        for (String part : scenario.says()) {
            assertTrue(m.contains(part), "says " + part + ": " + m);
        }
    }

    static List<Bad> badScenarios() {
        return List.of(
                // typo keys
                bad(
                        "groups: [{name: gpu, count: 2, time: {family: exponential, maen: 20}}]",
                        "group 'gpu'",
                        "unknown key 'maen'",
                        "mean"),
                bad(
                        "workers: [{name: solo, tiem: {family: constant, value: 1}}]",
                        "worker 'solo'",
                        "unknown key 'tiem'"),
                bad("group: [{name: gpu}]", "unknown top-level key 'group'"),
                bad(
                        "{unit: [ms], workers: [{name: a, time: {family: constant, value: 1}}]}",
                        "'unit' must be a short name"),
                bad(
                        "{unit: \"ms\\nB\", workers: [{name: a, time: {family: constant, value: 1}}]}",
                        "'unit' must be a short name"),
                // duplicate names (a duplicate YAML key is caught too)
                bad(
                        "{groups: [{name: gpu, count: 2, time: {family: constant, value: 1}}],"
                                + " workers: [{name: gpu-2, time: {family: constant, value: 1}}]}",
                        "'gpu-2'",
                        "group 'gpu'"),
                bad(
                        "workers: [{name: a, time: {family: constant, value: 1}}, {name: a, time: {family: constant, value: 2}}]",
                        "worker 'a'",
                        "already used"),
                bad("workers: [{name: a, name: b, time: {family: constant, value: 1}}]", "name"),
                // missing and out-of-range parameters
                bad("groups: [{name: cpu, count: 4, time: {family: gamma, shape: 2}}]", "group 'cpu'", "'scale'"),
                bad(
                        "groups: [{name: cpu, count: 4, time: {family: exponential, mean: -3}}]",
                        "group 'cpu'",
                        "'mean'",
                        "-3"),
                bad("workers: [{name: w, time: {family: half-normal, sigma: 1, shift: -1}}]", "worker 'w'", "'shift'"),
                bad("workers: [{name: w, time: {family: shifted-exponential, mean: 4}}]", "'shift'"),
                bad("workers: [{name: w, time: {family: log-normal, mean: 4, sd: 1, mu: 1}}]", "not both"),
                bad("workers: [{name: w, time: {family: uniform, min: 5, max: 4}}]", "max"),
                bad("workers: [{name: w, time: {family: constant, value: fast}}]", "'value'", "fast"),
                bad("groups: [{name: g, count: 0, time: {family: constant, value: 1}}]", "group 'g'", "count"),
                bad("groups: [{name: g, time: {family: constant, value: 1}}]", "group 'g'", "count"),
                // empirical logs: an unknown worker, a missing file, a bad line
                bad(
                        "workers: [{name: r, time: {family: empirical, log: logs/timings.csv, worker: w9}}]",
                        "worker 'r'",
                        "'w9'",
                        "w7, w8"),
                bad("workers: [{name: r, time: {family: empirical, log: missing.csv}}]", "worker 'r'", "missing.csv"),
                bad("workers: [{name: r, time: {family: empirical, log: bad.csv}}]", "line 3", "'oops'"),
                // schedules: changes, joins and leaves
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1},"
                                + " changes: [{after_round: 10, time: {family: constant, value: 2}, at: 3}]}]",
                        "worker 'w'",
                        "change #1",
                        "unknown key 'at'"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1},"
                                + " changes: [{time: {family: constant, value: 2}}]}]",
                        "change #1",
                        "missing 'after_round'"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1},"
                                + " changes: [{after_round: -1, time: {family: constant, value: 2}}]}]",
                        "after_round must be an integer >= 0",
                        "-1"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1},"
                                + " changes: [{after_round: 2.5, time: {family: constant, value: 2}}]}]",
                        "after_round must be an integer",
                        "2.5"),
                bad(
                        "groups: [{name: g, count: 2, time: {family: constant, value: 1}, changes: ["
                                + "{after_round: 10, time: {family: constant, value: 2}},"
                                + " {after_round: 10, time: {family: constant, value: 3}}]}]",
                        "group 'g'",
                        "change #2",
                        "must be greater than the previous change's 10"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1},"
                                + " changes: [{after_round: 5, time: {family: constant, valeu: 2}}]}]",
                        "change #1: time",
                        "unknown key 'valeu'"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1}, changes: {after_round: 5}}]",
                        "'changes' must be a list"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1},"
                                + " join_after_round: 10, leave_after_round: 10}]",
                        "worker 'w'",
                        "leave_after_round (10) must be greater than join_after_round (10)"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1}, join_after_round: soon}]",
                        "join_after_round must be an integer >= 0"),
                bad(
                        "workers: [{name: w, time: {family: constant, value: 1}, leave_after: 3}]",
                        "unknown key 'leave_after'",
                        "leave_after_round"));
    }

    @Test
    void schedulesChangeTheDistributionAndTheMembershipByRound() throws IOException {
        Path f = dir.resolve("changing.yaml");
        Files.writeString(f, """
                groups:
                  - name: g
                    count: 2
                    time: {family: constant, value: 10}
                    changes:
                      - {after_round: 100, time: {family: constant, value: 100}}
                      - {after_round: 200, time: {family: constant, value: 5}}
                workers:
                  - name: late
                    time: {family: exponential, mean: 7}
                    join_after_round: 50
                    leave_after_round: 80
                  - name: steady
                    time: {family: constant, value: 3}
                """);
        Scenario s = ScenarioFile.load(f);
        assertEquals(List.of("g-1", "g-2", "late", "steady"), s.workerNames());
        assertTrue(!s.isStationary());
        TimeSchedule g = s.schedules()[1];
        assertEquals(10, g.timeIn(1).mean());
        assertEquals(10, g.timeIn(100).mean());
        assertEquals(100, g.timeIn(101).mean());
        assertEquals(100, g.timeIn(200).mean());
        assertEquals(5, g.timeIn(201).mean());
        assertEquals(10, s.means()[0], "the means of the start: what fta knows");
        TimeSchedule late = s.schedules()[2];
        assertTrue(!late.presentIn(50) && late.presentIn(51) && late.presentIn(80) && !late.presentIn(81));
        assertTrue(s.schedules()[3].isStationary());

        ModelDurations durations = new ModelDurations(s.schedules(), 1);
        durations.startRound(100);
        assertEquals(10, durations.next(0));
        durations.startRound(101);
        assertEquals(100, durations.next(0));
        assertTrue(!durations.isStationary() && !durations.isPresent(2, 1) && durations.isPresent(2, 60));
    }

    @ParameterizedTest
    @MethodSource("badScenarios")
    void badScenariosAreErrorsThatSayWhy(Bad scenario) throws IOException {
        writeLog();
        Files.writeString(dir.resolve("bad.csv"), "worker,duration\nw1,1\nw1,oops\n");
        assertRejected(scenario);
    }

    @Test
    void emptyOrWrongExtension() throws IOException {
        assertTrue(error("# nothing\n").contains("empty"));
        Path f = write("fleet.txt", "workers: []\n");
        assertThrows(IllegalArgumentException.class, () -> ScenarioFile.load(f));
    }
}
