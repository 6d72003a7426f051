package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntToDoubleFunction;

/**
 * Workers whose tasks needed backups, kept out of the allocation until they prove themselves.
 *
 * <p>A worker loses a task to its backup when the backup copy finishes while the worker is still
 * stuck on its overdue task. That alone happens to healthy workers now and then (a slow worker's
 * long task against a fast worker's copy), so it is a strike; a worker enters probation when
 * it loses a task while stuck for an implausibly long time ({@link DeadlineRule#implausible}), or
 * loses again before completing anything in a round it lost nothing (two strikes). A frozen worker
 * is usually caught by the first rule in its first round, and always by the second in its
 * second. While on probation it gets no share of the batch; instead it is sent one probe task
 * beyond the batch in rounds
 * {@code r + 1, r + 3, r + 7, ...} (the gap doubles, up to {@link #MAX_GAP}), which the round does
 * not wait for. A probe that completes within the worker's deadline ends the probation. A probe's
 * duration is folded like any other, so a worker that really slowed down feeds the drift detector,
 * whose restart of its statistics gives it a new, larger deadline that its probes then meet.
 *
 * <p>So a worker frozen for good costs the round in which it froze, then one probe task per
 * {@code MAX_GAP} rounds of worker time and no round time.
 */
final class Probation {
    /** The longest gap between two probes of a worker on probation, in rounds. */
    static final int MAX_GAP = 32;

    private boolean[] onProbation = new boolean[0];
    private long[] nextProbe = new long[0];
    private int[] gap = new int[0];
    private boolean[] strike = new boolean[0];
    private int count;

    boolean contains(int worker) {
        return worker < onProbation.length && onProbation[worker];
    }

    /** Workers currently on probation. */
    int size() {
        return count;
    }

    /**
     * Who is on probation and when each is probed next, per worker index {@code 0..n-1} (the
     * statistics' indexes): on probation or not, the round of its next probe, the gap to the probe
     * after, and whether it has a strike (a loss to a backup not yet cleared by a clean round).
     */
    record State(boolean[] onProbation, long[] nextProbe, int[] gap, boolean[] strike) {
        private static final int PER_WORKER = 1 + Long.BYTES + Integer.BYTES + 1;

        State {
            int n = onProbation.length;
            if (nextProbe.length != n || gap.length != n || strike.length != n) {
                throw new IllegalArgumentException("probation state has arrays of different lengths");
            }
        }

        int workers() {
            return onProbation.length;
        }

        /** Big-endian: the number of workers, then per worker its flag, next probe, gap and strike. */
        byte[] toBytes() {
            ByteBuffer out = ByteBuffer.allocate(Integer.BYTES + PER_WORKER * workers());
            out.putInt(workers());
            for (int w = 0; w < workers(); w++) {
                out.put((byte) (onProbation[w] ? 1 : 0)).putLong(nextProbe[w]).putInt(gap[w]);
                out.put((byte) (strike[w] ? 1 : 0));
            }
            return out.array();
        }

        /** Reads {@link #toBytes()}'s encoding, refusing truncated bytes, negative rounds and gaps out of range. */
        static State fromBytes(byte[] bytes) {
            return StateReader.read(bytes, "probation state", in -> {
                int n = in.count(PER_WORKER, "workers");
                State s = new State(new boolean[n], new long[n], new int[n], new boolean[n]);
                for (int w = 0; w < n; w++) {
                    s.onProbation[w] = in.flag("worker " + w + "'s probation flag");
                    s.nextProbe[w] = in.nonNegativeLong("worker " + w + "'s next probe");
                    s.gap[w] = in.intIn(0, MAX_GAP, "worker " + w + "'s probe gap");
                    s.strike[w] = in.flag("worker " + w + "'s strike");
                }
                return s;
            });
        }

        /** What belongs to no worker: nothing but the fact that the policy has a probation. */
        State withoutWorkers() {
            return new State(new boolean[0], new long[0], new int[0], new boolean[0]);
        }

        /**
         * Undoes {@link #withoutWorkers()} and {@link Probation#slice}: the state of
         * {@code slices.size()} workers, worker {@code w}'s entries from {@code slices.get(w)}.
         *
         * @throws IllegalArgumentException if {@code shared} covers workers or a slice is not one
         *     worker's alone
         */
        static State join(State shared, List<State> slices) {
            if (shared.workers() != 0) {
                throw new IllegalArgumentException(
                        "the shared probation state covers " + shared.workers() + " workers, not 0");
            }
            int n = slices.size();
            State s = new State(new boolean[n], new long[n], new int[n], new boolean[n]);
            for (int w = 0; w < n; w++) {
                State slice = slices.get(w);
                if (slice.workers() != 1) {
                    throw new IllegalArgumentException(
                            "worker " + w + "'s probation state covers " + slice.workers() + " workers, not 1");
                }
                s.onProbation[w] = slice.onProbation[0];
                s.nextProbe[w] = slice.nextProbe[0];
                s.gap[w] = slice.gap[0];
                s.strike[w] = slice.strike[0];
            }
            return s;
        }
    }

    /** The probation of workers {@code 0..workers-1}. */
    State snapshot(int workers) {
        return new State(
                Arrays.copyOf(onProbation, workers),
                Arrays.copyOf(nextProbe, workers),
                Arrays.copyOf(gap, workers),
                Arrays.copyOf(strike, workers));
    }

    /**
     * Worker {@code w}'s slice of a {@link #snapshot}, read in place: its entries (zeros for a worker
     * not seen yet, as a snapshot pads it; a probation has no entry that belongs to no worker).
     */
    State slice(int w) {
        boolean seen = w < onProbation.length;
        return new State(
                new boolean[] {seen && onProbation[w]},
                new long[] {seen ? nextProbe[w] : 0},
                new int[] {seen ? gap[w] : 0},
                new boolean[] {seen && strike[w]});
    }

    /** Continues from {@code state}: the same workers on probation, probed in the same rounds. */
    void restore(State state) {
        onProbation = state.onProbation().clone();
        nextProbe = state.nextProbe().clone();
        gap = state.gap().clone();
        strike = state.strike().clone();
        count = 0;
        for (boolean on : onProbation) {
            count += on ? 1 : 0;
        }
    }

    /** Adds this round's probe tasks to {@code plan}: one each for the workers whose turn it is. */
    void addProbes(RoundPlan plan, long round, WorkerStats stats) {
        for (int w = 0; w < onProbation.length; w++) {
            if (onProbation[w] && stats.isActive(w) && nextProbe[w] <= round) {
                plan.add(w, 1);
                nextProbe[w] = round + gap[w];
                gap[w] = Math.min(2 * gap[w], MAX_GAP);
            }
        }
    }

    /**
     * Puts the workers whose losses to backups say they are stuck on probation, and releases those
     * whose tasks completed within {@code deadline} (their deadline when not on probation).
     *
     * @param implausible whether a worker stuck for a time on one task is implausible under its fit
     */
    void observe(RoundOutcome outcome, IntToDoubleFunction deadline, Implausible implausible) {
        for (int k = 0; k < outcome.workerCount(); k++) {
            int w = outcome.worker(k);
            ensureCapacity(w + 1);
            if (outcome.lostToBackup(w) > 0 && !onProbation[w]) {
                boolean stuck = strike[w] || implausible.test(w, outcome.stuckFor(w));
                strike[w] = true;
                if (stuck) {
                    onProbation[w] = true;
                    count++;
                    nextProbe[w] = outcome.round() + 1;
                    gap[w] = 2;
                }
            } else if (outcome.lostToBackup(w) == 0 && outcome.completed(w) > 0) {
                strike[w] = false;
            }
            if (onProbation[w]
                    && outcome.lostToBackup(w) == 0
                    && completedWithin(outcome, w, deadline.applyAsDouble(w))) {
                onProbation[w] = false;
                strike[w] = false;
                count--;
            }
        }
    }

    /** Whether worker {@code worker} stuck on one task for {@code elapsed} is implausible. */
    @FunctionalInterface
    interface Implausible {
        boolean test(int worker, double elapsed);
    }

    private static boolean completedWithin(RoundOutcome outcome, int worker, double deadline) {
        for (int k = 0; k < outcome.durationCount(); k++) {
            if (outcome.durationWorker(k) == worker && outcome.duration(k) <= deadline) {
                return true;
            }
        }
        return false;
    }

    private void ensureCapacity(int n) {
        if (onProbation.length < n) {
            // a snapshot for more workers than known pads every array with zeros: the new workers
            // are not on probation and have no strike
            restore(snapshot(Math.max(n, 2 * onProbation.length)));
        }
    }
}
