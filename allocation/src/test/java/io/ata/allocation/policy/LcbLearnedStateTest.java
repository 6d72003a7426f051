package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Version 2 of the ata family's learned state: the drift detector, the probation of the backup
 * tasks and the overhead model travel with the width's estimator, so a restored policy plans like
 * the one that never stopped, with a worker still on probation and a drift alarm still building up.
 */
class LcbLearnedStateTest {
    private static final int WORKERS = 4;
    private static final int BATCH = 8;
    private static final long SEED = 5;
    private static final int HUNG = 0;
    private static final int BACKUP = 2;
    private static final int DRIFTING = 1;
    private static final long HANGS_AT = 60;
    private static final long SLOWS_AT = 70;
    private static final PolicyContext CONTEXT =
            new PolicyContext(WORKERS, BATCH, null, ConstantConvention.PAPER, Double.NaN, Double.NaN, "-");

    /**
     * A live-like fleet: worker w's tasks take about {@code 10 (1 + w)}, each result arriving 20
     * after the round's start plus its compute plus 5 per earlier task; from {@link #SLOWS_AT}
     * worker {@link #DRIFTING} is three times slower, and from {@link #HANGS_AT} worker
     * {@link #HUNG} hangs: its tasks are backed up and lost to the copies (which worker {@link #BACKUP} runs), its
     * probes never come back.
     */
    private static final class Run {
        final WorkerStats stats;
        final LcbPolicy policy;

        Run(String name, WorkerStats stats) {
            this.stats = stats;
            this.policy = (LcbPolicy) PolicyRegistry.standard().create(name, CONTEXT, SEED, stats);
        }

        int[] play(long round) {
            RoundPlan plan = policy.plan(round);
            int[] tasks = plan.toArray(WORKERS);
            SplittableRandom rng = new SplittableRandom(round);
            RoundOutcome outcome = new RoundOutcome(WORKERS);
            outcome.reset(round, WORKERS);
            double[] clock = new double[WORKERS];
            for (int w = 0; w < WORKERS; w++) {
                for (int t = 0; t < tasks[w]; t++) {
                    double d = 10.0 * (1 + w) * (0.5 + rng.nextExponential());
                    if (w == DRIFTING && round >= SLOWS_AT) {
                        d *= 3;
                    }
                    if (w == HUNG && round >= HANGS_AT) {
                        if (!plan.isExact() && tasks[w] == 1) {
                            outcome.addCancelled(w, 500); // a probe: never back
                        } else {
                            outcome.addBackedUp(w);
                            outcome.addLostToBackup(w, 1000);
                            double copy = 10.0 * (1 + BACKUP) * (0.5 + rng.nextExponential());
                            clock[BACKUP] += copy;
                            outcome.addCompleted(BACKUP, copy, true, 20 + clock[BACKUP]);
                        }
                        continue;
                    }
                    clock[w] += d;
                    outcome.addCompleted(w, d, true, 20 + clock[w] + 5 * t);
                }
            }
            outcome.foldInto(stats);
            policy.observe(outcome);
            return tasks;
        }

        /** The sections of the policy's learned state as it would save them now. */
        LcbState sections() {
            return LcbState.fromBytes(policy.learnedState().orElseThrow().bytes());
        }

        /**
         * A new run over a copy of these statistics, restored from version 1 of the learned state:
         * the estimator's section alone, as a policy of before the other sections saved it.
         */
        Run restoredFromVersionOne() {
            Run legacy = new Run("ata-auto-overhead", stats.copy());
            legacy.policy.restoreLearnedState(
                    new PolicyState("ata-auto-overhead", 1, sections().width()));
            return legacy;
        }
    }

    /** ata-auto-overhead (all three adaptations) run to {@code rounds}. */
    private static Run ranTo(long rounds) {
        Run run = new Run("ata-auto-overhead", new WorkerStats(WORKERS));
        for (long round = 1; round <= rounds; round++) {
            run.play(round);
        }
        return run;
    }

    @Test
    void aRestoredPolicyKeepsItsProbationAndItsDriftAlarmInProgressAndPlansLikeTheOriginal() {
        long saved = 72; // worker 1's upward sum is at 17 of 20: it alarms in round 73
        Run original = ranTo(saved);
        PolicyState state = original.policy.learnedState().orElseThrow();
        assertEquals(LcbState.VERSION, state.version());
        LcbState sections = LcbState.fromBytes(state.bytes());
        Probation.State probation = Probation.State.fromBytes(sections.probation());
        assertTrue(probation.onProbation()[HUNG], "the hung worker is on probation when saved");
        DriftDetector.State drift = DriftDetector.State.fromBytes(sections.drift());
        assertTrue(drift.up()[DRIFTING] > 0, "a slowdown is building up in the CUSUM when saved");
        assertTrue(drift.up()[DRIFTING] < DriftDetector.UP_THRESHOLD, "but has not alarmed yet");
        assertTrue(OverheadModel.State.fromBytes(sections.overhead()).perRound().pooledCount() > 0);

        Run restored = new Run("ata-auto-overhead", original.stats.copy());
        restored.policy.restoreLearnedState(state);
        assertEquals(state, restored.policy.learnedState().orElseThrow(), "the state survives unchanged");
        Run widthOnly = original.restoredFromVersionOne();

        boolean widthOnlyDiffered = false;
        long alarmsBefore = original.policy.drift().orElseThrow().alarms();
        for (long round = saved + 1; round <= saved + 300; round++) {
            int[] expected = original.play(round);
            int[] got = restored.play(round);
            assertArrayEquals(expected, got, "round " + round);
            int[] fresh = widthOnly.play(round);
            widthOnlyDiffered |= !Arrays.equals(expected, fresh);
            assertTrue(got[HUNG] <= 1, "the hung worker gets at most a probe, round " + round);
        }
        assertTrue(original.policy.drift().orElseThrow().alarms() > alarmsBefore, "the slowdown was caught");
        assertEquals(
                original.policy.drift().orElseThrow().alarms(),
                restored.policy.drift().orElseThrow().alarms());
        assertTrue(widthOnlyDiffered, "without the new sections the policy would plan differently");
        assertEquals(original.policy.learnedState(), restored.policy.learnedState());
    }

    @Test
    void withoutItsProbationARestartedPolicyGivesTheHungWorkerAShareAgain() {
        Run original = ranTo(75);
        Run widthOnly = original.restoredFromVersionOne();
        assertTrue(widthOnly.policy.plan(76).tasks(HUNG) > 1, "version 1 restores no probation: a full share");
        assertTrue(original.policy.plan(76).tasks(HUNG) <= 1, "the original gives a probe at most");
    }

    @Test
    void eachComponentsStateRoundTripsExactly() {
        Run run = ranTo(75);
        LcbPolicy p = run.policy;
        DriftDetector.State drift = p.drift().orElseThrow().snapshot(WORKERS);
        assertArrayEquals(
                drift.toBytes(), DriftDetector.State.fromBytes(drift.toBytes()).toBytes());
        DriftDetector detector = new DriftDetector();
        detector.restore(DriftDetector.State.fromBytes(drift.toBytes()));
        assertArrayEquals(drift.toBytes(), detector.snapshot(WORKERS).toBytes());
        assertEquals(drift.alarms(), detector.alarms());

        OverheadModel.State overhead = p.overhead().orElseThrow().snapshot(WORKERS);
        OverheadModel model = new OverheadModel();
        model.restore(OverheadModel.State.fromBytes(overhead.toBytes()));
        assertArrayEquals(overhead.toBytes(), model.snapshot(WORKERS).toBytes());
        for (int w = 0; w < WORKERS; w++) {
            assertEquals(p.overhead().orElseThrow().perRound(w), model.perRound(w));
            assertEquals(p.overhead().orElseThrow().perTask(w), model.perTask(w));
        }

        Probation.State probation = new Probation.State(
                new boolean[] {false, true, false}, new long[] {0, 90, 12}, new int[] {0, 8, 2}, new boolean[] {
                    true, true, false
                });
        Probation restored = new Probation();
        restored.restore(Probation.State.fromBytes(probation.toBytes()));
        assertArrayEquals(probation.toBytes(), restored.snapshot(3).toBytes());
        assertEquals(1, restored.size());
        assertTrue(restored.contains(1));
        assertEquals(4 + 3 * 14, probation.toBytes().length, "count, then flag, next probe, gap, strike");
        assertArrayEquals(
                new Probation.State(new boolean[4], new long[4], new int[4], new boolean[4]).toBytes(),
                new Probation().snapshot(4).toBytes(),
                "a fresh probation snapshots as all clear");

        LcbState sections = new LcbState(new byte[] {1, 2}, null, new byte[0], new byte[] {7});
        LcbState back = LcbState.fromBytes(sections.toBytes());
        assertArrayEquals(new byte[] {1, 2}, back.width());
        assertNull(back.drift());
        assertArrayEquals(new byte[0], back.probation());
        assertArrayEquals(new byte[] {7}, back.overhead());
    }

    @Test
    void versionOneBytesStillRestoreTheEstimatorAndTheRestStartsAfresh() {
        Run run = ranTo(75);
        LcbState sections = run.sections();
        LcbState restored = run.restoredFromVersionOne().sections();
        assertArrayEquals(sections.width(), restored.width(), "the estimator");
        assertArrayEquals(new DriftDetector().snapshot(WORKERS).toBytes(), restored.drift(), "a fresh detector");
        assertArrayEquals(new Probation().snapshot(WORKERS).toBytes(), restored.probation(), "nobody on probation");
        assertArrayEquals(new OverheadModel().snapshot(WORKERS).toBytes(), restored.overhead(), "a fresh model");
    }

    @Test
    void aPolicyWhoseOnlyLearningIsItsWidthStillWritesVersionOne() {
        for (String name : new String[] {"ata-auto-subtractive", "ata-hedge:2"}) {
            AllocationPolicy p = PolicyRegistry.standard().create(name, CONTEXT, SEED, new WorkerStats(WORKERS));
            PolicyState state = p.learnedState().orElseThrow();
            assertEquals(1, state.version(), name);
            EstimatedRelativeWidth.State.fromBytes(state.bytes());
        }
    }

    @Test
    void aFixedWidthWithBackupsNowKeepsItsProbation() {
        WorkerStats stats = new WorkerStats(WORKERS);
        LcbPolicy ata =
                new LcbPolicy("ata", stats, ConfidenceWidth.absolute(0, "test"), BATCH, BATCH, SEED).withBackups(0);
        for (int w = 0; w < WORKERS; w++) {
            for (int k = 0; k < 50; k++) {
                stats.record(w, 10 * (w + 1) + k % 3);
            }
        }
        RoundOutcome lost = new RoundOutcome(WORKERS);
        lost.reset(1, WORKERS);
        lost.addBackedUp(0);
        lost.addLostToBackup(0, 5000);
        lost.addCompleted(1, 20, true);
        ata.observe(lost);
        PolicyState state = ata.learnedState().orElseThrow();
        assertEquals(LcbState.VERSION, state.version());
        assertNull(LcbState.fromBytes(state.bytes()).width(), "a fixed width has nothing to keep");

        LcbPolicy restored = new LcbPolicy("ata", stats.copy(), ConfidenceWidth.absolute(0, "test"), BATCH, BATCH, SEED)
                .withBackups(0);
        restored.restoreLearnedState(state);
        for (long round = 2; round <= 6; round++) {
            assertArrayEquals(
                    ata.plan(round).toArray(WORKERS), restored.plan(round).toArray(WORKERS));
            assertTrue(restored.plan(round).tasks(0) <= 1, "worker 0 stays on probation");
        }
        assertTrue(new LcbPolicy("ata", stats, ConfidenceWidth.absolute(0, "t"), BATCH, BATCH, SEED)
                .learnedState()
                .isEmpty());
    }

    @Test
    void corruptBytesAreRefusedAndLeaveTheFreshPolicyUntouched() {
        Run run = ranTo(75);
        PolicyState good = run.policy.learnedState().orElseThrow();
        LcbState sections = LcbState.fromBytes(good.bytes());
        byte[] bytes = good.bytes();

        int overhead = sections.overhead().length;
        assertRefused(
                "malformed ata state: " + overhead + " overhead section bytes do not fit in the " + (overhead - 1)
                        + " bytes left",
                run,
                2,
                Arrays.copyOf(bytes, bytes.length - 1));
        assertRefused("malformed ata state: 3 bytes are truncated", run, 2, Arrays.copyOf(bytes, 3));
        assertRefused("malformed ata state: 2 bytes left over", run, 2, Arrays.copyOf(bytes, bytes.length + 2));
        assertRefused(
                "the learned state of policy 'ata-auto-overhead' has version 3, which this build cannot read"
                        + " (it reads versions 1, 2)",
                run,
                3,
                bytes);

        byte[] nanDrift = sections.drift().clone();
        ByteBuffer.wrap(nanDrift).putDouble(4 + 41 * 2 + 24, Double.NaN); // worker 2's upward sum
        assertRefused(
                "malformed drift detector state: worker 2's upward sum is NaN, not a finite number >= 0",
                run,
                2,
                new LcbState(sections.width(), nanDrift, sections.probation(), sections.overhead()).toBytes());

        byte[] negative = sections.overhead().clone();
        ByteBuffer.wrap(negative).putInt(0, -1);
        assertRefused(
                "malformed overhead model state: -1 workers do not fit in the " + (negative.length - 4) + " bytes left",
                run,
                2,
                new LcbState(sections.width(), sections.drift(), sections.probation(), negative).toBytes());

        byte[] badGap = sections.probation().clone();
        ByteBuffer.wrap(badGap).putInt(4 + 9, 99); // worker 0's gap
        assertRefused(
                "malformed probation state: worker 0's probe gap is 99, not in [0, 32]",
                run,
                2,
                new LcbState(sections.width(), sections.drift(), badGap, sections.overhead()).toBytes());

        byte[] negativeRound = sections.probation().clone();
        ByteBuffer.wrap(negativeRound).putLong(4 + 1, -5);
        assertRefused(
                "malformed probation state: worker 0's next probe is -5, not >= 0",
                run,
                2,
                new LcbState(sections.width(), sections.drift(), negativeRound, sections.overhead()).toBytes());

        WorkerStats fewer = new WorkerStats(2);
        LcbPolicy smaller = (LcbPolicy) PolicyRegistry.standard().create("ata-auto-overhead", CONTEXT, SEED, fewer);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> smaller.restoreLearnedState(good));
        assertTrue(e.getMessage().startsWith("ata-auto-overhead state: its "), e.getMessage());
        assertTrue(e.getMessage().contains("the statistics' 2"), e.getMessage());

        LcbPolicy noOverhead =
                (LcbPolicy) PolicyRegistry.standard().create("ata-auto", CONTEXT, SEED, run.stats.copy());
        e = assertThrows(
                IllegalArgumentException.class,
                () -> noOverhead.restoreLearnedState(new PolicyState("ata-auto", 2, good.bytes())));
        assertEquals("ata-auto state has a overhead model section, but ata-auto has no overhead model", e.getMessage());
    }

    /**
     * Restoring {@code bytes} as version {@code version} fails with {@code message}, and the policy
     * it was restored into still has the state of a fresh one: nothing was half restored.
     */
    private static void assertRefused(String message, Run run, int version, byte[] bytes) {
        Run fresh = new Run("ata-auto-overhead", run.stats.copy());
        PolicyState before = fresh.policy.learnedState().orElseThrow();
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> fresh.policy.restoreLearnedState(new PolicyState("ata-auto-overhead", version, bytes)));
        assertEquals(message, e.getMessage());
        assertEquals(before, fresh.policy.learnedState().orElseThrow(), "nothing restored");
        assertFalse(Arrays.equals(
                before.bytes(), run.policy.learnedState().orElseThrow().bytes()));
    }
}
