package io.ata.lab.replay;

import static io.ata.lab.sim.SimulationTestSupport.assertWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.lab.sim.Experiment;
import io.ata.lab.sim.ModelDurations;
import io.ata.lab.sim.RunResult;
import io.ata.lab.sim.StatisticsAge;
import io.ata.lab.timinglog.TimingLog;
import io.ata.lab.timinglog.TimingLogReader;
import io.ata.lab.timinglog.TimingLogWriter;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A log drawn from known distributions, replayed, behaves like a simulation of them. */
class ReplayMatchesSimulationTest {
    private static final int WORKERS = 12;
    private static final int BATCH = 23;
    private static final long ROUNDS = 20_000;
    private static final String POLICIES = "fta,gta,uta,ata-auto";

    @Test
    void replayOfAGeneratedLogMatchesSimulation(@TempDir Path dir) throws Exception {
        TaskTimeDistribution[] model = TimeModels.byName("linear", WORKERS);
        // enough recorded tasks for every policy (GTA asks every worker about B/n * 2 per round)
        int perWorker = 200_000;
        SplittableRandom rng = new SplittableRandom(77);
        List<TimingRecord> records = new ArrayList<>();
        for (int k = 0; k < perWorker; k++) {
            for (int w = 0; w < WORKERS; w++) {
                records.add(new TimingRecord("worker-" + w, model[w].sample(rng)));
            }
        }
        Path file = dir.resolve("timings.jsonl");
        TimingLogWriter.write(file, records);
        TimingLog log = TimingLogReader.read(file);
        assertEquals(WORKERS, log.workerCount());

        PolicyContext simContext = new PolicyContext(
                WORKERS, BATCH, TimeModels.means(model), ConstantConvention.PAPER, Double.NaN, Double.NaN, "none");
        Map<String, List<RunResult>> simulated = Experiment.run(
                new Experiment.Setup(
                        simContext,
                        PolicyFactory.parseList(POLICIES),
                        ROUNDS,
                        1,
                        1,
                        s -> new ModelDurations(model, s),
                        null,
                        2,
                        List.of(StatisticsAge.FRESH)),
                null);
        PolicyContext replayContext =
                new PolicyContext(WORKERS, BATCH, log.means(), ConstantConvention.PAPER, Double.NaN, Double.NaN, "log");
        Map<String, List<RunResult>> replayed = Experiment.run(
                new Experiment.Setup(
                        replayContext,
                        PolicyFactory.parseList(POLICIES),
                        ROUNDS,
                        1,
                        1,
                        s -> new TraceDurations(log, ExhaustionMode.STOP, s),
                        null,
                        2,
                        List.of(StatisticsAge.FRESH)),
                null);

        for (String policy : simulated.keySet()) {
            RunResult sim = simulated.get(policy).get(0);
            RunResult rep = replayed.get(policy).get(0);
            assertEquals(ROUNDS, rep.rounds(), policy + " never ran out of recorded durations");
            assertWithin(sim.meanRoundTime(), rep.meanRoundTime(), 0.03, policy + " mean round time");
            assertWithin(sim.meanBusyTime(), rep.meanBusyTime(), 0.03, policy + " mean busy time");
        }
    }

    @Test
    void replayFollowsTheLogExactly(@TempDir Path dir) throws Exception {
        // two workers with constant times: FTA on means (1, 3) for B = 4 gives (3, 1): round time 3
        List<TimingRecord> records = new ArrayList<>();
        for (int k = 0; k < 40; k++) {
            records.add(new TimingRecord("fast", 1.0));
            records.add(new TimingRecord("slow", 3.0));
        }
        Path file = dir.resolve("t.csv");
        TimingLogWriter.write(file, records);
        TimingLog log = TimingLogReader.read(file);
        PolicyContext context =
                new PolicyContext(2, 4, log.means(), ConstantConvention.PAPER, Double.NaN, Double.NaN, "log");
        Map<String, List<RunResult>> r = Experiment.run(
                new Experiment.Setup(
                        context,
                        List.of("fta"),
                        100,
                        1,
                        1,
                        s -> new TraceDurations(log, ExhaustionMode.STOP, s),
                        null,
                        1,
                        List.of(StatisticsAge.FRESH)),
                null);
        RunResult fta = r.get("fta").get(0);
        assertEquals(13, fta.rounds(), "40 fast durations / 3 per round: the 14th round runs out");
        assertTrue(fta.stopReason().contains("fast"), fta.stopReason());
        assertEquals(3.0, fta.meanRoundTime(), 0);
        assertEquals(6.0, fta.meanBusyTime(), 0);
    }
}
