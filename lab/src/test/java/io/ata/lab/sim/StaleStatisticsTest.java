package io.ata.lab.sim;

import static io.ata.lab.sim.SimulationTestSupport.only;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import io.ata.workloads.time.TimeSchedule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StaleStatisticsTest {
    private static final int WORKERS = 17;

    @Test
    void aStaleRoundIsPlannedBeforeTheRoundBeforeItWasObservedAndNothingPastTheLast() {
        List<String> calls = recordCalls(StatisticsAge.ONE_ROUND_STALE, 5);
        assertEquals(
                List.of(
                        "plan 1",
                        "plan 2",
                        "observe 1",
                        "plan 3",
                        "observe 2",
                        "plan 4",
                        "observe 3",
                        "plan 5",
                        "observe 4",
                        "observe 5"),
                calls);
    }

    @Test
    void aFreshRoundIsPlannedAfterTheRoundBeforeItWasObserved() {
        List<String> calls = recordCalls(StatisticsAge.FRESH, 3);
        assertEquals(List.of("plan 1", "observe 1", "plan 2", "observe 2", "plan 3", "observe 3"), calls);
    }

    @Test
    void aStaleRoundRunsThePlanMadeForItNotTheLatestOne() {
        // UTA and FTA plan without statistics: a stale run must give exactly the fresh run, which
        // fails if a kept plan were lost, reused for the wrong round or overwritten by the next.
        Map<String, List<RunResult>> r = linear("uta,fta", List.of(StatisticsAge.FRESH, StatisticsAge.ONE_ROUND_STALE));
        for (String policy : List.of("uta", "fta")) {
            RunResult fresh = only(r, policy);
            RunResult stale = only(r, policy + "@stale");
            assertEquals(fresh.runtime(), stale.runtime(), 0, policy);
            assertEquals(fresh.totalWorkerTime(), stale.totalWorkerTime(), 0, policy);
            assertEquals(fresh.rounds(), stale.rounds(), policy);
        }
    }

    @Test
    void aLearningPolicyPlansDifferentlyFromStaleStatistics() {
        Map<String, List<RunResult>> r =
                linear("ata-auto", List.of(StatisticsAge.FRESH, StatisticsAge.ONE_ROUND_STALE));
        RunResult fresh = only(r, "ata-auto");
        RunResult stale = only(r, "ata-auto@stale");
        assertEquals("ata-auto@stale", stale.policy());
        assertEquals(fresh.rounds(), stale.rounds());
        assertNotEquals(fresh.runtime(), stale.runtime());
    }

    @Test
    void aRoundPlannedAheadSeesTheWorkersOfItsOwnRound() {
        // "early" leaves after round 100, "late" joins after round 50: a round-ahead plan made
        // with the workers of the round before would give round 101 a task on "early" (round time
        // 20, not 40) and round 51 none on "late"
        TimeSchedule[] fleet = {
            new TimeSchedule(new TaskTimeDistribution.Constant(10), List.of(), 0, 100),
            new TimeSchedule(new TaskTimeDistribution.Constant(20), List.of(), 50, TimeSchedule.NEVER)
        };
        PolicyContext context = new PolicyContext(
                2, 2, new double[] {10, 20}, ConstantConvention.PAPER, Double.NaN, Double.NaN, "none");
        Map<String, List<RunResult>> r = Experiment.run(
                new Experiment.Setup(
                        context,
                        List.of("uta", "ata-auto"),
                        200,
                        1,
                        1,
                        s -> new ModelDurations(fleet, s),
                        null,
                        1,
                        List.of(StatisticsAge.ONE_ROUND_STALE)),
                null);
        // rounds 1-50: early alone (2 x 10), 51-100: uta splits 1 + 1 (20), 101-200: late alone (2 x 20)
        assertEquals(
                (50 * 20 + 50 * 20 + 100 * 40) / 200.0, only(r, "uta@stale").meanRoundTime(), 0);
        assertEquals(200, only(r, "ata-auto@stale").rounds());
    }

    private static Map<String, List<RunResult>> linear(String policies, List<StatisticsAge> ages) {
        TaskTimeDistribution[] model = TimeModels.byName("linear", WORKERS);
        PolicyContext context = context(model);
        return Experiment.run(
                new Experiment.Setup(
                        context,
                        PolicyFactory.parseList(policies),
                        5_000,
                        7,
                        1,
                        s -> new ModelDurations(model, s),
                        null,
                        2,
                        ages),
                null);
    }

    private static PolicyContext context(TaskTimeDistribution[] model) {
        return new PolicyContext(
                WORKERS, 23, TimeModels.means(model), ConstantConvention.PAPER, Double.NaN, Double.NaN, "none");
    }

    /** The order in which a run asks its policy to plan and to observe. */
    private static List<String> recordCalls(StatisticsAge age, long rounds) {
        TaskTimeDistribution[] model = TimeModels.byName("linear", WORKERS);
        WorkerStats stats = new WorkerStats(WORKERS);
        AllocationPolicy inner = PolicyFactory.create("ata-auto", context(model), 1, stats);
        List<String> calls = new ArrayList<>();
        AllocationPolicy recording = new AllocationPolicy() {
            @Override
            public String name() {
                return inner.name();
            }

            @Override
            public String describe() {
                return inner.describe();
            }

            @Override
            public RoundPlan plan(long round) {
                calls.add("plan " + round);
                return inner.plan(round);
            }

            @Override
            public void observe(RoundOutcome outcome) {
                calls.add("observe " + outcome.round());
                inner.observe(outcome);
            }
        };
        new PolicyRun(WORKERS, 23, null, null)
                .run(recording, age, stats, new ModelDurations(model, 1), rounds, 1, new long[0], null, null);
        return calls;
    }
}
