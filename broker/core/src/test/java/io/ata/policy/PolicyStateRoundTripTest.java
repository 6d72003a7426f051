package io.ata.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.core.RoundOutcome;
import io.ata.core.RoundPlan;
import io.ata.core.WorkerStats;
import java.util.Arrays;
import java.util.SplittableRandom;
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

    /** A policy and the statistics it reads, driven like the simulator drives it. */
    private static final class Run {
        final WorkerStats stats;
        final AllocationPolicy policy;
        private final RoundOutcome outcome = new RoundOutcome(WORKERS);

        Run(String name, WorkerStats stats) {
            this.stats = stats;
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
                    // shifted exponentials, worker w about (w + 1)^2 times slower than worker 0: the
                    // slow ones stay barely observed, so how the policy explores them matters
                    outcome.addCompleted(w, 10.0 * (w + 1) * (w + 1) * (0.3 + rng.nextExponential()), true);
                }
            }
            outcome.foldInto(stats);
            policy.observe(outcome);
            return tasks;
        }
    }

    private static WorkerStats copyOf(WorkerStats stats) {
        WorkerStats copy = new WorkerStats(stats.size());
        for (int i = 0; i < stats.size(); i++) {
            copy.restore(
                    i, stats.count(i), stats.sum(i), stats.sumSquares(i), stats.sumCubes(i), stats.censoredTime(i));
            copy.setActive(i, stats.isActive(i));
        }
        return copy;
    }

    /**
     * Plays {@code before} rounds, lets the slowest worker leave, checkpoints, restores into a fresh policy
     * over a copy of the statistics, and checks both plan alike for {@code after} more rounds.
     * Returns whether a third policy, given the statistics but not the learned state, planned
     * differently in any of them: if not, the comparison could not tell a lost state.
     *
     * <p>The worker leaves at the checkpoint because ata-ert's refinement cache is not part of its
     * state: a change of fleet makes the original rebuild the cache in the same round as the restored
     * one does. The other policies do not need it.
     */
    private static boolean checkpointAndCompare(String name, int before, int after) {
        Run original = new Run(name, new WorkerStats(WORKERS));
        for (long round = 1; round <= before; round++) {
            original.play(round);
        }
        original.stats.setActive(WORKERS - 1, false);
        PolicyState state = original.policy.learnedState().orElseThrow();
        assertEquals(name, state.policy());

        Run restored = new Run(name, copyOf(original.stats));
        restored.policy.restoreLearnedState(state);
        assertEquals(state, restored.policy.learnedState().orElseThrow(), "the state survives unchanged");
        Run statisticsOnly = new Run(name, copyOf(original.stats));
        boolean statisticsOnlyDiffered = false;
        for (long round = before + 1; round <= before + after; round++) {
            int[] expected = original.play(round);
            assertArrayEquals(expected, restored.play(round), name + " round " + round);
            statisticsOnlyDiffered |= !Arrays.equals(expected, statisticsOnly.play(round));
        }
        return statisticsOnlyDiffered;
    }

    @ParameterizedTest
    @ValueSource(strings = {"ata-auto", "ata-auto-subtractive", "ata-hedge:2", "ata-ert"})
    void anEstimatorPolicyRestoredFromItsStateAllocatesLikeTheOriginal(String name) {
        assertTrue(checkpointAndCompare(name, 100, 600), "without its learned state it would plan differently");
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
        assertEquals("estimator state of 63 bytes should have 64 for its 3 samples", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> EstimatedRelativeWidth.State.fromBytes(new byte[10]));
        assertEquals("estimator state of 10 bytes is shorter than its 28-byte header", e.getMessage());
        byte[] tooMany = state.toBytes();
        java.nio.ByteBuffer.wrap(tooMany).putInt(24, 5000);
        e = assertThrows(IllegalArgumentException.class, () -> EstimatedRelativeWidth.State.fromBytes(tooMany));
        assertEquals("estimator state claims 5000 samples; it holds 0 to 4096", e.getMessage());
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

        PolicyState future = new PolicyState("ata-hedge:2", 2, auto.bytes());
        e = assertThrows(IllegalArgumentException.class, () -> hedge.restoreLearnedState(future));
        assertEquals(
                "the learned state of policy 'ata-hedge:2' has version 2, which this build cannot read"
                        + " (it reads version 1)",
                e.getMessage());

        AllocationPolicy ert = PolicyRegistry.standard().create("ata-ert", CONTEXT, SEED, stats);
        e = assertThrows(IllegalArgumentException.class, () -> ert.restoreLearnedState(auto));
        assertEquals("the learned state of policy 'ata-auto' cannot be restored into policy 'ata-ert'", e.getMessage());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> ert.restoreLearnedState(new PolicyState("ata-ert", 9, auto.bytes())));
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
