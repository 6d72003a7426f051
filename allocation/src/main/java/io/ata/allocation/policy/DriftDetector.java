package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.WorkerStats;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * Notices that a worker's speed changed, and makes the statistics re-learn it.
 *
 * <p>ATA's statistics never forget: after 18,000 tasks at 58 a worker that slows to 580 needs
 * thousands more tasks before its mean says so, and a wildly slow first sample (a cold start)
 * keeps a worker looking slow for many samples. This detector runs a two-sided CUSUM (Page's
 * test) per worker on the standardised residual {@code r = (x - m) / s} of each completed
 * duration {@code x}, where {@code m} and {@code s} are the worker's mean and standard deviation
 * when its test last stood at zero (the reference is frozen while evidence builds up, so a
 * change does not pull the reference along with it):
 * <pre>
 *   up   = max(0, up   + r - UP_SLACK)     alarm when up   > UP_THRESHOLD   (slower)
 *   down = max(0, down - r - DOWN_SLACK)   alarm when down > DOWN_THRESHOLD (faster)
 * </pre>
 * On an alarm the worker's statistics restart from its durations of the current round (and the
 * time its cancelled tasks ran in it), so the confidence bound widens again and ATA re-learns.
 *
 * <p>Why a CUSUM and not a window or a discount: it keeps two numbers per worker and costs a few
 * flops per duration; until it alarms, the statistics are exactly ATA's, so on a stationary fleet
 * ATA's guarantees and accuracy are untouched. A window or a discount would forget all the time
 * and widen every bound for good. The price: a change smaller than about the slack (1.5 standard
 * deviations up, 0.5 down) is not caught here and is learnt only as slowly as plain ATA learns it.
 *
 * <p>The thresholds are chosen for a false alarm well below once per million durations on
 * exponential-tailed times (Wald's bound {@code exp(theta* h)}, {@code theta* ~= 0.94} up and
 * {@code 2.5} down for exponential residuals), and a 10x change is caught after a handful of
 * durations: 10x slower after 1-2, 10x faster after about 5 (shifted exponential) to 15 (pure
 * exponential). Measured in DriftDetectorTest.
 *
 * <p>Against a reference of fewer than {@link #MIN_REFERENCE} samples the deviation is too
 * uncertain for the CUSUM (two close samples would make every later one look far off, and a
 * restarted slow worker looks fast to ATA until re-learnt, which costs rounds); there only a
 * duration ten times the mean alarms, or, against a single sample, one ten times below it. Together with the policy's
 * second opinion (a worker with one sample is explored once more) this forgets a cold-start
 * outlier. A worker that gets no tasks yields no durations, so a slow worker that becomes fast is
 * only noticed once ATA's exploration gives it a task again.
 */
public final class DriftDetector {
    static final double UP_SLACK = 1.5;
    static final double UP_THRESHOLD = 20;
    /**
     * The most one duration adds to the upward sum, in standard deviations: a single outlier (a
     * GC pause, a noisy neighbour for a moment) never alarms alone; a slowdown needs at least
     * {@code UP_THRESHOLD / (MAX_RESIDUAL - UP_SLACK)} (about 5) slow durations.
     */
    static final double MAX_RESIDUAL = 6;

    static final double DOWN_SLACK = 0.5;
    static final double DOWN_THRESHOLD = 8;
    /** A floor under the reference deviation, relative to the mean: near-constant times are not all alarms. */
    static final double MIN_RELATIVE_SD = 0.1;
    /** Samples a reference needs before the CUSUM tests against it (its deviation is estimated). */
    static final long MIN_REFERENCE = 10;
    /** Against a reference of fewer samples: the ratio that counts as a change. */
    static final double FIRST_SAMPLE_RATIO = 10;

    private double[] referenceMean = new double[0];
    private double[] referenceSd = new double[0];
    private long[] referenceCount = new long[0];
    private double[] up = new double[0];
    private double[] down = new double[0];
    private boolean[] alarmed = new boolean[0];
    private long alarms;
    private int[] restarted = new int[0];
    private int restartedCount;

    /**
     * Tests the round's completed durations; restarts the statistics of every worker whose test
     * alarms. Call after {@code outcome} was folded into {@code stats}.
     */
    public void observe(WorkerStats stats, RoundOutcome outcome) {
        ensureCapacity(stats.size());
        restartedCount = 0;
        boolean any = false;
        for (int k = 0; k < outcome.durationCount(); k++) {
            int w = outcome.durationWorker(k);
            double m = referenceMean[w];
            if (!(m > 0) || alarmed[w]) {
                continue; // no reference yet (first round of samples), or already restarting
            }
            double x = outcome.duration(k);
            if (referenceCount[w] < MIN_REFERENCE) {
                // A few samples say little about the spread, so no CUSUM yet: a duration ten times
                // the mean alarms, and against a single sample (a possible cold start) one ten times
                // below it too. A false alarm here drops only these few samples.
                if (x > FIRST_SAMPLE_RATIO * m || (referenceCount[w] == 1 && x * FIRST_SAMPLE_RATIO < m)) {
                    alarmed[w] = true;
                    any = true;
                }
                continue;
            }
            double r = Math.min(MAX_RESIDUAL, (x - m) / referenceSd[w]);
            up[w] = Math.max(0, up[w] + r - UP_SLACK);
            down[w] = Math.max(0, down[w] - r - DOWN_SLACK);
            if (up[w] > UP_THRESHOLD || down[w] > DOWN_THRESHOLD) {
                alarmed[w] = true;
                any = true;
            }
        }
        if (any) {
            restartAlarmed(stats, outcome);
        }
        for (int j = 0; j < outcome.workerCount(); j++) {
            int w = outcome.worker(j);
            if (up[w] == 0 && down[w] == 0) {
                setReference(stats, w);
            }
        }
    }

    /** How many workers the last {@link #observe} restarted. */
    public int restartedCount() {
        return restartedCount;
    }

    /** The {@code i}-th worker the last {@link #observe} restarted. */
    public int restarted(int i) {
        return restarted[i];
    }

    /** Alarms so far, over all workers. */
    public long alarms() {
        return alarms;
    }

    /**
     * Everything the detector has learned, per worker index {@code 0..n-1} (the statistics'
     * indexes): the reference each worker's durations are tested against, its CUSUM sums, whether
     * it alarmed, and the alarms counted over all workers. What {@link #restarted} lists is not
     * kept: it is read right after the {@link #observe} that set it, never after a restart.
     */
    public record State(
            double[] referenceMean,
            double[] referenceSd,
            long[] referenceCount,
            double[] up,
            double[] down,
            boolean[] alarmed,
            long alarms) {
        private static final int PER_WORKER = 4 * Double.BYTES + Long.BYTES + 1;

        public State {
            int n = referenceMean.length;
            if (referenceSd.length != n
                    || referenceCount.length != n
                    || up.length != n
                    || down.length != n
                    || alarmed.length != n) {
                throw new IllegalArgumentException("drift detector state has arrays of different lengths");
            }
        }

        /** The workers it covers. */
        public int workers() {
            return referenceMean.length;
        }

        /**
         * Big-endian: the number of workers; per worker its reference mean, deviation and count, its
         * upward and downward sums and its alarm flag (one byte); then the alarms so far.
         */
        public byte[] toBytes() {
            ByteBuffer out = ByteBuffer.allocate(Integer.BYTES + PER_WORKER * workers() + Long.BYTES);
            out.putInt(workers());
            for (int w = 0; w < workers(); w++) {
                out.putDouble(referenceMean[w]).putDouble(referenceSd[w]).putLong(referenceCount[w]);
                out.putDouble(up[w]).putDouble(down[w]).put((byte) (alarmed[w] ? 1 : 0));
            }
            return out.putLong(alarms).array();
        }

        /** Reads {@link #toBytes()}'s encoding, refusing truncated bytes, negative counts and NaN. */
        public static State fromBytes(byte[] bytes) {
            return StateReader.read(bytes, "drift detector state", in -> {
                int n = in.count(PER_WORKER, "workers");
                State s = new State(
                        new double[n], new double[n], new long[n], new double[n], new double[n], new boolean[n], 0);
                for (int w = 0; w < n; w++) {
                    s.referenceMean[w] = in.nonNegative("worker " + w + "'s reference mean");
                    s.referenceSd[w] = in.nonNegative("worker " + w + "'s reference deviation");
                    s.referenceCount[w] = in.nonNegativeLong("worker " + w + "'s reference count");
                    s.up[w] = in.nonNegative("worker " + w + "'s upward sum");
                    s.down[w] = in.nonNegative("worker " + w + "'s downward sum");
                    s.alarmed[w] = in.flag("worker " + w + "'s alarm flag");
                }
                return new State(
                        s.referenceMean,
                        s.referenceSd,
                        s.referenceCount,
                        s.up,
                        s.down,
                        s.alarmed,
                        in.nonNegativeLong("the alarm count"));
            });
        }

        /** What belongs to no worker: the alarm count, over no worker. */
        State withoutWorkers() {
            return new State(
                    new double[0], new double[0], new long[0], new double[0], new double[0], new boolean[0], alarms);
        }

        /**
         * Undoes {@link #withoutWorkers()} and {@link DriftDetector#slice}: the state of
         * {@code slices.size()} workers, worker {@code w}'s entries from {@code slices.get(w)}, the alarm count from
         * {@code shared}.
         *
         * @throws IllegalArgumentException if {@code shared} covers workers or a slice is not one
         *     worker's alone
         */
        static State join(State shared, List<State> slices) {
            if (shared.workers() != 0) {
                throw new IllegalArgumentException(
                        "the shared drift detector state covers " + shared.workers() + " workers, not 0");
            }
            int n = slices.size();
            State s = new State(
                    new double[n], new double[n], new long[n], new double[n], new double[n], new boolean[n], 0);
            for (int w = 0; w < n; w++) {
                State slice = slices.get(w);
                if (slice.workers() != 1 || slice.alarms() != 0) {
                    throw new IllegalArgumentException("worker " + w + "'s drift detector state covers "
                            + slice.workers() + " workers and counts " + slice.alarms()
                            + " alarms, not 1 worker and no alarm");
                }
                s.referenceMean[w] = slice.referenceMean[0];
                s.referenceSd[w] = slice.referenceSd[0];
                s.referenceCount[w] = slice.referenceCount[0];
                s.up[w] = slice.up[0];
                s.down[w] = slice.down[0];
                s.alarmed[w] = slice.alarmed[0];
            }
            return new State(
                    s.referenceMean, s.referenceSd, s.referenceCount, s.up, s.down, s.alarmed, shared.alarms());
        }
    }

    /** What the detector has learned about workers {@code 0..workers-1}. */
    public State snapshot(int workers) {
        return new State(
                Arrays.copyOf(referenceMean, workers),
                Arrays.copyOf(referenceSd, workers),
                Arrays.copyOf(referenceCount, workers),
                Arrays.copyOf(up, workers),
                Arrays.copyOf(down, workers),
                Arrays.copyOf(alarmed, workers),
                alarms);
    }

    /**
     * Worker {@code w}'s slice of a {@link #snapshot}, read in place: its entries alone (zeros for a
     * worker not seen yet, as a snapshot pads it), and no alarm count, which counts every worker's
     * alarms and would change the slice when another worker alarms.
     */
    State slice(int w) {
        boolean seen = w < referenceMean.length;
        return new State(
                new double[] {seen ? referenceMean[w] : 0},
                new double[] {seen ? referenceSd[w] : 0},
                new long[] {seen ? referenceCount[w] : 0},
                new double[] {seen ? up[w] : 0},
                new double[] {seen ? down[w] : 0},
                new boolean[] {seen && alarmed[w]},
                0);
    }

    /** Continues from {@code state}, as if this detector had observed what its writer had. */
    public void restore(State state) {
        int n = state.workers();
        referenceMean = state.referenceMean().clone();
        referenceSd = state.referenceSd().clone();
        referenceCount = state.referenceCount().clone();
        up = state.up().clone();
        down = state.down().clone();
        alarmed = state.alarmed().clone();
        alarms = state.alarms();
        restarted = new int[n];
        restartedCount = 0;
    }

    private void restartAlarmed(WorkerStats stats, RoundOutcome outcome) {
        for (int j = 0; j < outcome.workerCount(); j++) {
            int w = outcome.worker(j);
            if (!alarmed[w]) {
                continue;
            }
            long count = 0;
            double sum = 0;
            double squares = 0;
            double cubes = 0;
            for (int k = 0; k < outcome.durationCount(); k++) {
                if (outcome.durationWorker(k) == w) {
                    double x = outcome.duration(k);
                    count++;
                    sum += x;
                    squares += x * x;
                    cubes += x * x * x;
                }
            }
            stats.restore(w, count, sum, squares, cubes, outcome.cancelledTime(w));
            alarmed[w] = false;
            up[w] = 0;
            down[w] = 0;
            referenceMean[w] = 0; // set again below, from the restarted statistics
            restarted[restartedCount++] = w;
            alarms++;
        }
    }

    /** The worker's current mean and deviation become the reference its next durations are tested against. */
    private void setReference(WorkerStats stats, int w) {
        double m = stats.mean(w);
        if (!(m > 0)) {
            return;
        }
        double variance = stats.variance(w); // NaN below two samples: assume exponential-like, sd = mean
        double sd = Double.isNaN(variance) ? m : Math.sqrt(variance);
        referenceMean[w] = m;
        referenceCount[w] = stats.count(w);
        referenceSd[w] = Math.max(sd, MIN_RELATIVE_SD * m);
    }

    private void ensureCapacity(int n) {
        if (referenceMean.length < n) {
            // a snapshot for more workers than known pads every array with zeros: the new workers
            // have no reference yet and no alarm
            restore(snapshot(Math.max(n, 2 * referenceMean.length)));
        }
    }
}
