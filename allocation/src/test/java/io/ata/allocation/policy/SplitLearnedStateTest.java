package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ata family's learned state split per worker ({@link AllocationPolicy#splitLearnedState()}),
 * as the broker stores it: restored, it leaves a policy exactly as the whole state would; a round
 * changes only the parts of the workers it involved; and what cannot be restored is refused whole.
 */
class SplitLearnedStateTest {
    private static final int WORKERS = 16;
    private static final int BATCH = 12;
    private static final long SEED = 7;
    private static final int HUNG = 0;
    private static final int BACKUP = 2;
    private static final int DRIFTING = 1;
    /** Before this round a 17th worker joins the fleet. */
    private static final long JOINS_AT = 40;

    private static final long HANGS_AT = 60;
    private static final long SLOWS_AT = 70;
    private static final PolicyContext CONTEXT =
            new PolicyContext(WORKERS, BATCH, null, ConstantConvention.PAPER, Double.NaN, Double.NaN, "-");
    /** An ata with a fixed width and backup tasks: per-worker state (probation), no estimator. */
    private static final String FIXED_WIDTH_WITH_BACKUPS = "ata+backups";

    /**
     * A live-like heterogeneous fleet: worker w's tasks take about {@code 10 (1 + 0.4 w)}, each
     * result arriving 20 after the round's start plus its compute plus 5 per earlier task (so the
     * overhead model learns); from {@link #SLOWS_AT} worker {@link #DRIFTING} is four times slower
     * (the drift detector alarms), and from {@link #HANGS_AT} worker {@link #HUNG} hangs: its tasks
     * are lost to backup copies that worker {@link #BACKUP} runs (probation), its probes never come
     * back.
     */
    private static final class Run {
        final WorkerStats stats;
        final AllocationPolicy policy;
        private final RoundOutcome outcome = new RoundOutcome(WORKERS);
        /** The workers the last round involved: they ran tasks, probes or backups. */
        final Set<Integer> involved = new HashSet<>();

        Run(String config, WorkerStats stats) {
            this.stats = stats;
            this.policy = create(config, stats);
        }

        void join() {
            policy.workerAdded(stats.addWorker(), Double.NaN);
        }

        int[] play(long round) {
            return play(round, () -> {});
        }

        /** Plays {@code round}, calling {@code planned} between its plan and its outcome. */
        int[] play(long round, Runnable planned) {
            if (round >= JOINS_AT && stats.size() == WORKERS) {
                join();
            }
            int n = stats.size();
            RoundPlan plan = policy.plan(round);
            planned.run();
            int[] tasks = plan.toArray(n);
            SplittableRandom rng = new SplittableRandom(round);
            outcome.reset(round, n);
            double[] clock = new double[n];
            for (int w = 0; w < n; w++) {
                for (int t = 0; t < tasks[w]; t++) {
                    if (w == HUNG && round >= HANGS_AT) {
                        if (!plan.isExact() && tasks[w] == 1) {
                            outcome.addCancelled(w, 500); // a probe: never back
                        } else {
                            outcome.addBackedUp(w);
                            outcome.addLostToBackup(w, 1000);
                            double copy = time(BACKUP, round, rng);
                            clock[BACKUP] += copy;
                            outcome.addCompleted(BACKUP, copy, true, 20 + clock[BACKUP]);
                        }
                        continue;
                    }
                    double d = time(w, round, rng);
                    clock[w] += d;
                    outcome.addCompleted(w, d, true, 20 + clock[w] + 5 * t);
                }
            }
            outcome.foldInto(stats);
            policy.observe(outcome);
            involved.clear();
            for (int k = 0; k < outcome.workerCount(); k++) {
                involved.add(outcome.worker(k));
            }
            return tasks;
        }

        private static double time(int w, long round, SplittableRandom rng) {
            double d = 10.0 * (1 + 0.4 * w) * (0.5 + rng.nextExponential());
            return w == DRIFTING && round >= SLOWS_AT ? 4 * d : d;
        }

        SplitPolicyState split() {
            return policy.splitLearnedState().orElseThrow();
        }

        byte[] learnedBytes() {
            return policy.learnedState().orElseThrow().bytes();
        }
    }

    private static AllocationPolicy create(String config, WorkerStats stats) {
        if (config.equals(FIXED_WIDTH_WITH_BACKUPS)) {
            return new LcbPolicy("ata", stats, ConfidenceWidth.relative(1, "test"), BATCH, BATCH, SEED).withBackups(0);
        }
        return PolicyRegistry.standard().create(config, CONTEXT, SEED, stats);
    }

    private static Run ranTo(String config, long rounds) {
        Run run = new Run(config, new WorkerStats(WORKERS));
        for (long round = 1; round <= rounds; round++) {
            run.play(round);
        }
        return run;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ata-auto",
                "ata-auto-no-drift",
                "ata-auto-no-backup",
                "ata-auto-overhead",
                FIXED_WIDTH_WITH_BACKUPS
            })
    void aSplitStateRestoresExactlyAsTheWholeStateAndPlansLikeTheOriginal(String config) {
        long saved = 75;
        Run original = ranTo(config, saved);
        SplitPolicyState split = original.split();
        assertEquals(WORKERS + 1, original.stats.size(), "a worker joined mid-way");
        assertEquals(original.stats.size(), split.workers().size(), "one part per worker of the statistics");
        assertEquals(LcbPolicy.SPLIT_SHARED_VERSION, split.shared().version());
        List<byte[]> parts = split.workers();
        assertFalse(Arrays.equals(parts.get(HUNG), parts.get(BACKUP)), "the hung worker's part is not a healthy one's");
        if (((LcbPolicy) original.policy).drift().isPresent()) {
            long distinct = parts.stream().map(ByteBuffer::wrap).distinct().count(); // by content
            assertTrue(distinct > WORKERS / 2, config + ": each worker's drift test is in its own part");
        }

        Run restored = new Run(config, original.stats.copy());
        restored.policy.restoreSplitLearnedState(split);
        assertArrayEquals(original.learnedBytes(), restored.learnedBytes(), "the same learned state");
        assertEquals(split, restored.split(), "and so the same split");

        Run statisticsOnly = new Run(config, original.stats.copy());
        boolean statisticsOnlyDiffered = false;
        for (long round = saved + 1; round <= saved + 60; round++) {
            int[] expected = original.play(round);
            assertArrayEquals(expected, restored.play(round), config + " round " + round);
            statisticsOnlyDiffered |= !Arrays.equals(expected, statisticsOnly.play(round));
        }
        assertTrue(statisticsOnlyDiffered, config + ": without its learned state it would plan differently");
        assertArrayEquals(original.learnedBytes(), restored.learnedBytes());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ata-auto", "ata-auto-overhead", FIXED_WIDTH_WITH_BACKUPS})
    void aRoundChangesOnlyThePartsOfTheWorkersItInvolved(String config) {
        Run run = ranTo(config, JOINS_AT - 1);
        List<byte[]> before = run.split().workers();
        run.join();
        List<byte[]> joined = run.split().workers();
        assertEquals(WORKERS + 1, joined.size());
        for (int w = 0; w < WORKERS; w++) {
            assertArrayEquals(before.get(w), joined.get(w), "a worker joining changes no other's part");
        }

        long alarmsBefore = alarms(run);
        int changed = 0;
        int kept = 0;
        for (long round = JOINS_AT; round <= 140; round++) {
            before = run.split().workers();
            run.play(round);
            List<byte[]> after = run.split().workers();
            for (int w = 0; w < after.size(); w++) {
                if (run.involved.contains(w)) {
                    changed += Arrays.equals(before.get(w), after.get(w)) ? 0 : 1;
                } else {
                    assertArrayEquals(before.get(w), after.get(w), "worker " + w + " had no part in round " + round);
                    kept++;
                }
            }
        }
        assertTrue(
                changed > 0 && kept > 0, "rounds changed some parts (" + changed + ") and kept others (" + kept + ")");
        if (!config.equals(FIXED_WIDTH_WITH_BACKUPS)) {
            assertTrue(alarms(run) > alarmsBefore, "drift alarms (a count of all workers') happened meanwhile");
        }
        if (config.equals("ata-auto-overhead")) {
            assertTrue(((LcbPolicy) run.policy).overhead().orElseThrow().hasLearned(), "the fleet's overheads moved");
        }
    }

    /**
     * The contract a store relies on to skip building parts: whenever a worker's part changes, at a
     * plan (probes), an outcome or a restore, its change count has grown. Checked at every step of
     * a run with joins, hangs, probation, drift and overheads.
     */
    @ParameterizedTest
    @ValueSource(strings = {"ata-auto", "ata-auto-no-drift", "ata-auto-overhead", FIXED_WIDTH_WITH_BACKUPS})
    void aWorkersChangeCountGrowsWheneverItsPartChanges(String config) {
        Run run = new Run(config, new WorkerStats(WORKERS));
        LearnedParts parts = run.policy.learnedParts().orElseThrow();
        int[] changedAtPlan = {0};
        Snapshot[] last = {Snapshot.of(parts)};
        for (long round = 1; round <= 140; round++) {
            long r = round;
            run.play(round, () -> {
                Snapshot now = Snapshot.of(parts);
                changedAtPlan[0] += last[0].assertCountsCover(now, config + " round " + r + ", planned");
                last[0] = now;
            });
            Snapshot now = Snapshot.of(parts);
            last[0].assertCountsCover(now, config + " round " + round + ", observed");
            last[0] = now;
        }
        if (!config.equals("ata-auto-no-drift") && !config.equals("ata-auto-overhead")) {
            assertTrue(changedAtPlan[0] > 0, config + ": probes changed parts at a plan");
        }

        Run restored = new Run(config, run.stats.copy());
        LearnedParts restoredParts = restored.policy.learnedParts().orElseThrow();
        Snapshot fresh = Snapshot.of(restoredParts);
        restored.policy.restoreSplitLearnedState(run.split());
        Snapshot after = Snapshot.of(restoredParts);
        fresh.assertCountsCover(after, config + " restored");
        for (int w = 0; w < after.parts.size(); w++) {
            assertNotEquals(fresh.counts[w], after.counts[w], "a restore counts every worker's part as changed");
        }
    }

    /**
     * A policy that splits its state but counts no changes (a plugin written before
     * {@code learnedParts()}) still has a view of it: its parts, with counts that move at every
     * view, so that a store compares every part instead of taking any as unchanged.
     */
    @Test
    void aPolicyThatDoesNotCountItsChangesHasAViewWhoseCountsAlwaysMove() {
        SplitPolicyState split = ranTo("ata-auto", 30).split();
        AllocationPolicy plugin = new AllocationPolicy() {
            @Override
            public String name() {
                return "plugin";
            }

            @Override
            public String describe() {
                return "plugin";
            }

            @Override
            public RoundPlan plan(long round) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void observe(RoundOutcome outcome) {}

            @Override
            public Optional<SplitPolicyState> splitLearnedState() {
                return Optional.of(split);
            }
        };
        LearnedParts first = plugin.learnedParts().orElseThrow();
        LearnedParts second = plugin.learnedParts().orElseThrow();
        assertEquals(split, first.copy(), "the view holds the split state's parts");
        for (int w = 0; w < split.workers().size(); w++) {
            assertNotEquals(first.changes(w), second.changes(w), "worker " + w + "'s count moved");
        }
        assertTrue(
                new Run("uta", new WorkerStats(WORKERS)).policy.learnedParts().isEmpty(), "no split, no view");
    }

    /** Every worker's part and change count at one moment. */
    private record Snapshot(List<byte[]> parts, long[] counts) {
        static Snapshot of(LearnedParts view) {
            long[] counts = new long[view.workers()];
            for (int w = 0; w < counts.length; w++) {
                counts[w] = view.changes(w);
            }
            return new Snapshot(view.copy().workers(), counts);
        }

        /** Asserts that every part that changed since this snapshot has a grown count; returns how many changed. */
        int assertCountsCover(Snapshot now, String when) {
            int changed = 0;
            for (int w = 0; w < parts.size(); w++) {
                if (!Arrays.equals(parts.get(w), now.parts.get(w))) {
                    assertTrue(
                            now.counts[w] > counts[w], when + ": worker " + w + "'s part changed, its count did not");
                    changed++;
                }
            }
            return changed;
        }
    }

    private static long alarms(Run run) {
        return ((LcbPolicy) run.policy).drift().map(DriftDetector::alarms).orElse(0L);
    }

    @Test
    void aWorkersPartOfAtaAutoIsEightyThreeBytes() {
        SplitPolicyState split = ranTo("ata-auto", 30).split();
        // section flags (width, overhead absent: 1 + 1); drift: 1 + 4 + (4 + 41 + 8); probation: 1 + 4 + (4 + 14)
        for (byte[] part : split.workers()) {
            assertEquals(83, part.length);
        }
    }

    @Test
    void refusedSplitStatesRestoreNothing() {
        String name = "ata-auto-overhead";
        Run run = ranTo(name, 75);
        SplitPolicyState good = run.split();
        List<byte[]> parts = good.workers();
        PolicyState shared = good.shared();
        LcbState sharedSections = LcbState.fromBytes(shared.bytes());
        LcbState part3 = LcbState.fromBytes(parts.get(3));

        assertRefused(
                name + " split state has 16 worker parts, but the statistics have 17 workers",
                run,
                new SplitPolicyState(shared, parts.subList(0, WORKERS)));
        List<byte[]> more = new ArrayList<>(parts);
        more.add(parts.get(0));
        assertRefused(
                name + " split state has 18 worker parts, but the statistics have 17 workers",
                run,
                new SplitPolicyState(shared, more));

        byte[] truncated = Arrays.copyOf(parts.get(3), parts.get(3).length - 1);
        int overhead = part3.overhead().length;
        assertRefused(
                name + " split state: worker 3's part: malformed ata state: " + overhead
                        + " overhead section bytes do not fit in the " + (overhead - 1) + " bytes left",
                run,
                withPart(good, 3, truncated));

        byte[] nanDrift = part3.drift().clone();
        ByteBuffer.wrap(nanDrift).putDouble(4 + 24, Double.NaN);
        assertRefused(
                name + " split state: worker 3's part: malformed drift detector state: worker 0's upward sum is NaN,"
                        + " not a finite number >= 0",
                run,
                withPart(good, 3, new LcbState(null, nanDrift, part3.probation(), part3.overhead()).toBytes()));

        // parts of the wrong shape
        DriftDetector.State drift = DriftDetector.State.fromBytes(sharedWholeDrift(run));
        assertRefused(
                name + " split state: worker 2's drift detector state covers 2 workers and counts 0 alarms, not 1"
                        + " worker and no alarm",
                run,
                withPart(
                        good, 2, new LcbState(null, twoWorkers(drift), part3.probation(), part3.overhead()).toBytes()));
        assertRefused(
                name + " split state: worker 3's drift detector state covers 1 workers and counts 5 alarms, not 1"
                        + " worker and no alarm",
                run,
                withPart(
                        good,
                        3,
                        new LcbState(null, withAlarms(part3.drift(), 5), part3.probation(), part3.overhead())
                                .toBytes()));
        assertRefused(
                name + " split state: worker 4's part has other sections than the shared part's drift, probation and"
                        + " overhead",
                run,
                withPart(good, 4, new LcbState(null, part3.drift(), null, part3.overhead()).toBytes()));
        assertRefused(
                name + " split state: worker 5's part has other sections than the shared part's drift, probation and"
                        + " overhead",
                run,
                withPart(good, 5, run.learnedBytes()));
        OverheadModel.State oneWorkerWithFleet = OverheadModel.State.fromBytes(part3.overhead());
        OverheadModel.State withFleet = new OverheadModel.State(
                oneWorkerWithFleet.seen(),
                new OverheadModel.TermState(
                        oneWorkerWithFleet.perRound().estimate(),
                        oneWorkerWithFleet.perRound().count(),
                        3,
                        1),
                oneWorkerWithFleet.perTask());
        assertRefused(
                name + " split state: worker 6's overhead model state covers 1 workers or has the fleet's terms; it"
                        + " must be 1 worker's alone",
                run,
                withPart(good, 6, new LcbState(null, part3.drift(), part3.probation(), withFleet.toBytes()).toBytes()));
        assertRefused(
                name + " split state: the shared drift detector state covers 2 workers, not 0",
                run,
                new SplitPolicyState(
                        new PolicyState(
                                name,
                                shared.version(),
                                new LcbState(
                                                sharedSections.width(),
                                                twoWorkers(drift),
                                                sharedSections.probation(),
                                                sharedSections.overhead())
                                        .toBytes()),
                        parts));

        // a malformed width goes through the whole state's checks
        byte[] badWidth = Arrays.copyOf(sharedSections.width(), sharedSections.width().length - 1);
        PolicyState badShared = new PolicyState(
                name,
                shared.version(),
                new LcbState(badWidth, sharedSections.drift(), sharedSections.probation(), sharedSections.overhead())
                        .toBytes());
        assertRefused(
                "malformed estimator state: "
                        + EstimatedRelativeWidth.State.fromBytes(sharedSections.width())
                                .samples()
                                .length
                        + " samples do not fit in the " + (badWidth.length - 28) + " bytes left",
                run,
                new SplitPolicyState(badShared, parts));

        // another policy's shared part, and an unknown version
        SplitPolicyState autoSplit = ranTo("ata-auto", 75).split();
        assertRefused(
                "the learned state of policy 'ata-auto' cannot be restored into policy '" + name + "'", run, autoSplit);
        assertRefused(
                "the learned state of policy '" + name + "' has version 2, which this build cannot read"
                        + " (it reads version 3)",
                run,
                new SplitPolicyState(new PolicyState(name, 2, shared.bytes()), parts));
    }

    @Test
    void theWholeStateReaderRefusesASharedPart() {
        Run run = ranTo("ata-auto", 75);
        PolicyState shared = run.split().shared();
        Run fresh = new Run("ata-auto", run.stats.copy());
        byte[] before = fresh.learnedBytes();
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> fresh.policy.restoreLearnedState(shared));
        assertEquals(
                "the learned state of policy 'ata-auto' has version 3, which this build cannot read"
                        + " (it reads versions 1, 2)",
                e.getMessage());
        assertArrayEquals(before, fresh.learnedBytes(), "nothing restored");
    }

    @Test
    void policiesWithoutPerWorkerLearningDoNotSplit() {
        PolicyContext withConstants =
                new PolicyContext(WORKERS, BATCH, new double[WORKERS], ConstantConvention.PAPER, 10, 0.8, "user");
        SplitPolicyState some = ranTo("ata-auto", 10).split();
        for (String name : List.of(
                "uta", "ata", "ata-empirical", "ata-auto-subtractive", "ata-hedge:2", "ata-ert", "test-rotating")) {
            AllocationPolicy policy =
                    PolicyRegistry.standard().create(name, withConstants, SEED, new WorkerStats(WORKERS));
            assertTrue(policy.splitLearnedState().isEmpty(), name);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> policy.restoreSplitLearnedState(some), name);
            assertEquals(
                    name + " does not split its learned state per worker; restore its whole learnedState() instead",
                    e.getMessage());
        }
        Run hedge = ranTo("ata-hedge:2", 50);
        assertTrue(hedge.policy.learnedState().isPresent(), "it learns its width, which belongs to no worker");
        assertTrue(hedge.policy.splitLearnedState().isEmpty());
    }

    @Test
    void aSplitStateIsAValueOverItsBytes() {
        PolicyState shared = new PolicyState("p", 3, new byte[] {1});
        byte[] part = {1, 2, 3};
        List<byte[]> parts = new ArrayList<>(List.of(part, new byte[0]));
        SplitPolicyState split = new SplitPolicyState(shared, parts);
        part[0] = 9;
        parts.add(new byte[] {4});
        assertEquals(2, split.workers().size(), "the list copied in");
        assertArrayEquals(new byte[] {1, 2, 3}, split.workers().get(0), "the parts copied in");
        split.workers().get(0)[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, split.workers().get(0), "copied out");
        assertThrows(UnsupportedOperationException.class, () -> split.workers().add(new byte[0]));

        SplitPolicyState same = new SplitPolicyState(shared, List.of(new byte[] {1, 2, 3}, new byte[0]));
        assertEquals(same, split);
        assertEquals(same.hashCode(), split.hashCode());
        assertNotEquals(new SplitPolicyState(shared, List.of(new byte[] {1, 2, 4}, new byte[0])), split);
        assertNotEquals(new SplitPolicyState(shared, List.of(new byte[] {1, 2, 3})), split);
        assertNotEquals(new SplitPolicyState(new PolicyState("p", 3, new byte[] {2}), same.workers()), split);
        assertEquals(
                "SplitPolicyState[shared=PolicyState[policy=p, version=3, 1 bytes], 2 worker parts, 3 bytes]",
                split.toString());

        assertThrows(NullPointerException.class, () -> new SplitPolicyState(null, List.of()));
        assertThrows(NullPointerException.class, () -> new SplitPolicyState(shared, null));
        assertThrows(NullPointerException.class, () -> new SplitPolicyState(shared, Arrays.asList(part, null)));
    }

    /** The whole state's drift section of {@code run}'s policy. */
    private static byte[] sharedWholeDrift(Run run) {
        return LcbState.fromBytes(run.learnedBytes()).drift();
    }

    /** The drift state of the first two workers of {@code drift}, with no alarm. */
    private static byte[] twoWorkers(DriftDetector.State drift) {
        UnaryOperator<double[]> two = a -> Arrays.copyOf(a, 2);
        return new DriftDetector.State(
                        two.apply(drift.referenceMean()),
                        two.apply(drift.referenceSd()),
                        Arrays.copyOf(drift.referenceCount(), 2),
                        two.apply(drift.up()),
                        two.apply(drift.down()),
                        Arrays.copyOf(drift.alarmed(), 2),
                        0)
                .toBytes();
    }

    /** {@code slice} (a drift section's bytes) with its alarm count, the last 8 bytes, set to {@code alarms}. */
    private static byte[] withAlarms(byte[] slice, long alarms) {
        byte[] bytes = slice.clone();
        ByteBuffer.wrap(bytes).putLong(bytes.length - Long.BYTES, alarms);
        return bytes;
    }

    private static SplitPolicyState withPart(SplitPolicyState split, int worker, byte[] part) {
        List<byte[]> parts = new ArrayList<>(split.workers());
        parts.set(worker, part);
        return new SplitPolicyState(split.shared(), parts);
    }

    /**
     * Restoring {@code split} into a fresh policy over {@code run}'s statistics fails with
     * {@code message}, and that policy's learned state is still a fresh one's: nothing was half
     * restored.
     */
    private static void assertRefused(String message, Run run, SplitPolicyState split) {
        Run fresh = new Run(run.policy.name(), run.stats.copy());
        byte[] before = fresh.learnedBytes();
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> fresh.policy.restoreSplitLearnedState(split));
        assertEquals(message, e.getMessage());
        assertArrayEquals(before, fresh.learnedBytes(), "nothing restored");
        assertFalse(Arrays.equals(before, run.learnedBytes()), "the fresh policy differs from the saved one");
    }
}
