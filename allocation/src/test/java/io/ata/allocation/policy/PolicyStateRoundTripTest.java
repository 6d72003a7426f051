package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every learning policy, checkpointed after some rounds and restored into a fresh one over the
 * restored statistics, allocates exactly like the original from then on.
 */
class PolicyStateRoundTripTest {
    private static final int WORKERS = 8;
    private static final int BATCH = 8;
    private static final long SEED = 11;
    private static final PolicyContext CONTEXT =
            new PolicyContext(WORKERS, BATCH, null, ConstantConvention.PAPER, Double.NaN, Double.NaN, "-");

    /** A worker's task time, drawn from the round's generator. */
    private interface TaskTimes {
        double draw(int worker, SplittableRandom rng);
    }

    /**
     * Shifted exponentials, worker w about (w + 1)^2 times slower than worker 0: the slow ones stay
     * barely observed, so how the policy explores them matters.
     */
    private static final TaskTimes STEEP = (w, rng) -> 10.0 * (w + 1) * (w + 1) * (0.3 + rng.nextExponential());

    /**
     * Shifted exponentials, worker w 1 + 0.3 w times slower than worker 0: close enough that
     * ata-ert's refinement has choices to make.
     */
    private static final TaskTimes GENTLE = (w, rng) -> 10.0 * (1 + 0.3 * w) * (0.5 + rng.nextExponential());

    /** A policy and the statistics it reads, driven like the simulator drives it. */
    private static final class Run {
        final WorkerStats stats;
        final AllocationPolicy policy;
        private final TaskTimes times;
        private final RoundOutcome outcome = new RoundOutcome(WORKERS);

        Run(String name, WorkerStats stats) {
            this(name, stats, STEEP);
        }

        Run(String name, WorkerStats stats, TaskTimes times) {
            this.stats = stats;
            this.times = times;
            this.policy = PolicyRegistry.standard().create(name, CONTEXT, SEED, stats);
        }

        /** Plans round {@code round}, runs it with durations fixed by the round, and feeds the outcome back. */
        int[] play(long round) {
            RoundPlan plan = policy.plan(round);
            int[] tasks = plan.toArray(WORKERS);
            SplittableRandom rng = new SplittableRandom(round);
            outcome.reset(round, WORKERS);
            for (int w = 0; w < WORKERS; w++) {
                for (int t = 0; t < tasks[w]; t++) {
                    outcome.addCompleted(w, times.draw(w, rng), true);
                }
            }
            outcome.foldInto(stats);
            policy.observe(outcome);
            return tasks;
        }
    }

    /**
     * Plays {@code before} rounds, checkpoints, restores into a fresh policy over a copy of the
     * statistics, and checks both plan alike for {@code after} more rounds. Returns whether a third
     * policy, given the statistics but not the learned state, planned differently in any of them:
     * if not, the comparison could not tell a lost state.
     */
    private static boolean checkpointAndCompare(String name, int before, int after) {
        Run original = new Run(name, new WorkerStats(WORKERS));
        for (long round = 1; round <= before; round++) {
            original.play(round);
        }
        PolicyState state = original.policy.learnedState().orElseThrow();
        assertEquals(name, state.policy());

        Run restored = new Run(name, original.stats.copy());
        restored.policy.restoreLearnedState(state);
        assertEquals(state, restored.policy.learnedState().orElseThrow(), "the state survives unchanged");
        Run statisticsOnly = new Run(name, original.stats.copy());
        boolean statisticsOnlyDiffered = false;
        for (long round = before + 1; round <= before + after; round++) {
            int[] expected = original.play(round);
            assertArrayEquals(expected, restored.play(round), name + " round " + round);
            statisticsOnlyDiffered |= !Arrays.equals(expected, statisticsOnly.play(round));
        }
        return statisticsOnlyDiffered;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ata-auto",
                "ata-auto-no-drift",
                "ata-auto-no-backup",
                "ata-auto-overhead",
                "ata-auto-subtractive",
                "ata-hedge:2",
                "ata-ert"
            })
    void anEstimatorPolicyRestoredFromItsStateAllocatesLikeTheOriginal(String name) {
        assertTrue(checkpointAndCompare(name, 100, 600), "without its learned state it would plan differently");
    }

    /**
     * ata-ert checkpointed anywhere in a run (mid refresh period, just before and after a refresh,
     * right after a worker leaves or comes back, and rounds later) and restored into a fresh policy
     * over a copy of the statistics plans exactly like the run that never stopped, to its end. So
     * its refinement cache (cached plans, refresh schedule, time model) travels with its state.
     */
    @Test
    void ataErtRestoredAnywhereInARunPlansLikeTheUninterruptedRun() {
        long rounds = 3000;
        // after these rounds the fleet changes: the slowest worker leaves, comes back; another leaves
        Map<Long, Consumer<WorkerStats>> fleetChanges = Map.of(
                700L, stats -> stats.setActive(WORKERS - 1, false),
                1500L, stats -> stats.setActive(WORKERS - 1, true),
                2100L, stats -> stats.setActive(2, false));
        // The cache is rebuilt in rounds 2, 4, 8, ..., 512 (the refresh period doubles), then in the
        // round after each change of fleet (701, 1501, 2101) and a period after that (1402).
        List<Long> restorePoints = List.of(
                1L, 30L, 100L, 200L, 300L, 511L, 512L, 513L, 700L, 701L, 1000L, 1401L, 1402L, 1500L, 2100L, 2500L);

        Run original = new Run("ata-ert", new WorkerStats(WORKERS), GENTLE);
        Map<Long, int[]> planned = new HashMap<>();
        Map<Long, PolicyState> states = new HashMap<>();
        Map<Long, WorkerStats> statsAt = new HashMap<>();
        for (long round = 1; round <= rounds; round++) {
            planned.put(round, original.play(round));
            fleetChanges.getOrDefault(round, stats -> {}).accept(original.stats);
            if (restorePoints.contains(round)) {
                states.put(round, original.policy.learnedState().orElseThrow());
                statsAt.put(round, original.stats.copy());
            }
        }

        int legacyDiffered = 0;
        for (long point : restorePoints) {
            PolicyState state = states.get(point);
            Run restored = new Run("ata-ert", statsAt.get(point).copy(), GENTLE);
            restored.policy.restoreLearnedState(state);
            assertEquals(state, restored.policy.learnedState().orElseThrow(), "the state survives unchanged");
            // version 1 carried the base policy's state only: the cache was rebuilt from the statistics
            Run legacy = new Run("ata-ert", statsAt.get(point).copy(), GENTLE);
            legacy.policy.restoreLearnedState(new PolicyState(
                    "ata-ert", 1, ExpectedTimeState.fromBytes(state.bytes()).baseBytes()));
            boolean legacyDiffers = false;
            for (long round = point + 1; round <= rounds; round++) {
                assertArrayEquals(
                        planned.get(round), restored.play(round), "restored after " + point + ", round " + round);
                legacyDiffers |= !Arrays.equals(planned.get(round), legacy.play(round));
                fleetChanges.getOrDefault(round, stats -> {}).accept(restored.stats);
                fleetChanges.getOrDefault(round, stats -> {}).accept(legacy.stats);
            }
            legacyDiffered += legacyDiffers ? 1 : 0;
        }
        assertTrue(legacyDiffered > 0, "without its cache a restored ata-ert would plan differently somewhere");
    }

    @Test
    void aThirdPartyPolicysStateRoundTripsThroughTheSameInterface() {
        assertTrue(
                checkpointAndCompare("test-rotating", 10, 20), "without its learned state it would plan differently");
    }

    @Test
    void theEstimatorEncodingIsExactAndRefusesMalformedBytes() {
        EstimatedRelativeWidth.State state =
                new EstimatedRelativeWidth.State(0.7, 300, 512, new int[] {0, 3, 1}, new double[] {1.5, 2.25, 9});
        EstimatedRelativeWidth.State back = EstimatedRelativeWidth.State.fromBytes(state.toBytes());
        assertEquals(0.7, back.eta());
        assertEquals(300, back.seen());
        assertEquals(512, back.nextRefresh());
        assertArrayEquals(new int[] {0, 3, 1}, back.sampleWorkers());
        assertArrayEquals(new double[] {1.5, 2.25, 9}, back.samples());
        assertEquals(28 + 3 * 12, state.toBytes().length, "header, then worker and duration per sample");

        byte[] bytes = state.toBytes();
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> EstimatedRelativeWidth.State.fromBytes(Arrays.copyOf(bytes, bytes.length - 1)));
        assertEquals("malformed estimator state: 3 samples do not fit in the 35 bytes left", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> EstimatedRelativeWidth.State.fromBytes(new byte[10]));
        assertEquals("malformed estimator state: 10 bytes are truncated", e.getMessage());
        byte[] tooMany = state.toBytes();
        java.nio.ByteBuffer.wrap(tooMany).putInt(24, 5000);
        e = assertThrows(IllegalArgumentException.class, () -> EstimatedRelativeWidth.State.fromBytes(tooMany));
        assertEquals("malformed estimator state: 5000 samples do not fit in the 36 bytes left", e.getMessage());
        byte[] overReservoir =
                new EstimatedRelativeWidth.State(1, 5000, 8192, new int[4097], new double[4097]).toBytes();
        e = assertThrows(IllegalArgumentException.class, () -> EstimatedRelativeWidth.State.fromBytes(overReservoir));
        assertEquals("malformed estimator state: 4097 samples are more than the 4096 it holds", e.getMessage());
    }

    @Test
    void ataErtsEncodingRefusesMalformedBytesAndAnotherFleet() {
        Run run = new Run("ata-ert", new WorkerStats(WORKERS), GENTLE);
        for (long round = 1; round <= 300; round++) {
            run.play(round);
        }
        byte[] bytes = run.policy.learnedState().orElseThrow().bytes();
        AllocationPolicy fresh = PolicyRegistry.standard().create("ata-ert", CONTEXT, SEED, run.stats.copy());

        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> fresh.restoreLearnedState(new PolicyState("ata-ert", 2, Arrays.copyOf(bytes, bytes.length - 1))));
        assertEquals("malformed ata-ert state: 8 fits do not fit in the 287 bytes left", e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> fresh.restoreLearnedState(new PolicyState("ata-ert", 2, Arrays.copyOf(bytes, bytes.length + 3))));
        assertEquals("malformed ata-ert state: 3 bytes left over", e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> fresh.restoreLearnedState(new PolicyState("ata-ert", 2, Arrays.copyOf(bytes, 20))));
        assertEquals("malformed ata-ert state: 28828 base state bytes do not fit in the 12 bytes left", e.getMessage());

        AllocationPolicy smallerFleet = PolicyRegistry.standard().create("ata-ert", CONTEXT, SEED, new WorkerStats(2));
        e = assertThrows(
                IllegalArgumentException.class,
                () -> smallerFleet.restoreLearnedState(new PolicyState("ata-ert", 2, bytes)));
        assertEquals("ata-ert state: a refined plan names worker 2, not one of the fleet's 2", e.getMessage());
    }

    @Test
    void aPolicyRefusesAnotherPolicysStateAndUnknownVersions() {
        WorkerStats stats = new WorkerStats(WORKERS);
        PolicyState auto = PolicyRegistry.standard()
                .create("ata-auto", CONTEXT, SEED, stats)
                .learnedState()
                .orElseThrow();
        AllocationPolicy hedge = PolicyRegistry.standard().create("ata-hedge:2", CONTEXT, SEED, stats);

        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> hedge.restoreLearnedState(auto));
        assertEquals(
                "the learned state of policy 'ata-auto' cannot be restored into policy 'ata-hedge:2'", e.getMessage());

        PolicyState future = new PolicyState("ata-hedge:2", 3, auto.bytes());
        e = assertThrows(IllegalArgumentException.class, () -> hedge.restoreLearnedState(future));
        assertEquals(
                "the learned state of policy 'ata-hedge:2' has version 3, which this build cannot read"
                        + " (it reads versions 1, 2)",
                e.getMessage());

        AllocationPolicy ert = PolicyRegistry.standard().create("ata-ert", CONTEXT, SEED, stats);
        e = assertThrows(IllegalArgumentException.class, () -> ert.restoreLearnedState(auto));
        assertEquals("the learned state of policy 'ata-auto' cannot be restored into policy 'ata-ert'", e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> ert.restoreLearnedState(new PolicyState("ata-ert", 9, auto.bytes())));
        assertEquals(
                "the learned state of policy 'ata-ert' has version 9, which this build cannot read"
                        + " (it reads versions 1, 2)",
                e.getMessage());
        // version 2 carries its base policy's state with that state's own version
        ExpectedTimeState ertState =
                ExpectedTimeState.fromBytes(ert.learnedState().orElseThrow().bytes());
        byte[] futureBase = new ExpectedTimeState(
                        9,
                        ertState.baseBytes(),
                        ertState.nextRefresh(),
                        ertState.refinements(),
                        ertState.membershipChanged(),
                        ertState.refined(),
                        ertState.lastFrozenPairs(),
                        ertState.model())
                .toBytes();
        e = assertThrows(
                IllegalArgumentException.class,
                () -> ert.restoreLearnedState(new PolicyState("ata-ert", 2, futureBase)));
        assertTrue(e.getMessage().startsWith("ata-ert, restoring its base ata-auto: "), e.getMessage());
        assertTrue(e.getMessage().contains("has version 9"), e.getMessage());
    }

    @Test
    void policiesThatLearnNothingBeyondTheStatisticsHaveNoStateAndTakeNone() {
        PolicyContext withConstants = new PolicyContext(
                WORKERS, BATCH, new double[] {1, 2, 3, 4, 5, 6, 7, 8}, ConstantConvention.PAPER, 10, 0.8, "user");
        PolicyState some = new PolicyState("ata", 1, new byte[28]);
        for (String name : PolicyRegistry.standard()
                .parseList("fta,uta,gta,ata,ata-empirical,proportional,adaptive-proportional,test-all-on:1")) {
            AllocationPolicy policy =
                    PolicyRegistry.standard().create(name, withConstants, SEED, new WorkerStats(WORKERS));
            assertTrue(policy.learnedState().isEmpty(), name);
            assertThrows(IllegalArgumentException.class, () -> policy.restoreLearnedState(some), name);
        }
        AllocationPolicy ata = PolicyRegistry.standard().create("ata", withConstants, SEED, new WorkerStats(WORKERS));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ata.restoreLearnedState(some));
        assertEquals("ata has a fixed width; there is no estimator state to restore", e.getMessage());
    }

    @Test
    void aPolicyStateIsAValueOverItsBytes() {
        byte[] bytes = {1, 2, 3};
        PolicyState state = new PolicyState("p", 1, bytes);
        bytes[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, state.bytes(), "copied in");
        state.bytes()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, state.bytes(), "copied out");
        assertEquals(new PolicyState("p", 1, new byte[] {1, 2, 3}), state);
        assertEquals(new PolicyState("p", 1, new byte[] {1, 2, 3}).hashCode(), state.hashCode());
        assertNotEquals(new PolicyState("p", 2, new byte[] {1, 2, 3}), state);
        assertNotEquals(new PolicyState("p", 1, new byte[] {1, 2, 4}), state);
    }
}
