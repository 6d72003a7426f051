package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * What a task costs a round beyond the compute time its worker measures, learned per worker from
 * when the results reached the trainer ({@link RoundOutcome#arrival(int)}).
 *
 * <p>The model: worker {@code i}'s {@code k}-th result of a round arrives at
 * {@code c_i + x_1 + ... + x_k + (k - 1) d_i} after the round's start, where {@code x_j} are its
 * compute times. The per-round term {@code c_i} is what every round pays before and after the
 * work (the assignment's delivery, the last result's publication and its way to the trainer);
 * the per-task term {@code d_i} is what each further task adds (publishing and committing one
 * more result, a busy machine's scheduling). Each round gives one sample of {@code c_i} (the first
 * result's arrival minus its compute time) and, for a worker that ran several tasks, samples of
 * {@code d_i} (the gap between consecutive results minus the later one's compute time), so the
 * two terms are measured apart, without a regression.
 *
 * <p>Both terms change with the machine's load, so they are exponentially weighted means (weight
 * {@code max(1/n, 1/20)}: the plain mean for the first 20 samples, then a memory of about 20).
 * Negative samples (clock granularity) count as zero; a sample more than {@link #OUTLIER_FACTOR}
 * times the worker's current estimate (a GC pause, a rebalance) counts as that bound, so one stall
 * cannot move the allocation for long.
 *
 * <p>Two rules keep a worker from being judged on too little, since a worker that gets no tasks
 * gets no new samples either and would stay misjudged for good:
 * <ul>
 *   <li>a worker's first round of a job is no sample of its per-round term: it carries one-time
 *       costs (fetching the job's model, building its network) that later rounds do not pay;</li>
 *   <li>a worker's own estimate counts in proportion to its samples: with {@code n} of them, its
 *       term is {@code (n x own + PRIOR x fleet) / (n + PRIOR)}, the fleet's mean weighing like
 *       {@link #PRIOR} samples. A worker without samples takes the fleet's mean.</li>
 * </ul>
 *
 * <p>The simulator has no transport: its outcomes carry no arrivals and this model stays empty,
 * so a policy holding one plans exactly as without it there.
 */
public final class OverheadModel {
    /** The weight of a new sample once a term has this many: a memory of about 20 rounds. */
    static final int MEMORY = 20;
    /** A sample above this many times the current estimate counts as that bound. */
    static final double OUTLIER_FACTOR = 4;
    /** Samples needed before the outlier bound applies. */
    static final int TRUSTED_AFTER = 5;
    /** How many samples the fleet's mean weighs like in a worker's term. */
    static final int PRIOR = 10;

    private final Term perRound = new Term();
    private final Term perTask = new Term();
    /** Per worker, whether its first round (the one-time costs) has been seen. */
    private boolean[] seen = new boolean[0];
    /** Scratch: per worker, the arrival of its previous result in the round being observed. */
    private double[] lastArrival = new double[0];

    /** Learns from a round's completed results and their arrivals; a round without arrivals changes nothing. */
    public void observe(RoundOutcome outcome) {
        int n = outcome.durationCount();
        ensureCapacity(outcome);
        for (int k = 0; k < outcome.workerCount(); k++) {
            lastArrival[outcome.worker(k)] = Double.NaN;
        }
        for (int k = 0; k < n; k++) {
            double arrival = outcome.arrival(k);
            if (Double.isNaN(arrival)) {
                continue;
            }
            int w = outcome.durationWorker(k);
            double previous = lastArrival[w];
            if (Double.isNaN(previous)) {
                if (seen[w]) {
                    perRound.add(w, arrival - outcome.duration(k));
                }
                seen[w] = true;
            } else {
                perTask.add(w, arrival - previous - outcome.duration(k));
            }
            lastArrival[w] = arrival;
        }
    }

    /** Whether any round has brought an arrival: until then the model has nothing to say. */
    public boolean hasLearned() {
        return perRound.pooledCount > 0 || perTask.pooledCount > 0;
    }

    /** The per-round term of {@code worker}: what a round it has tasks in pays besides their compute. */
    public double perRound(int worker) {
        return perRound.estimate(worker);
    }

    /** The per-task term of {@code worker}: what each task after its first adds besides its compute. */
    public double perTask(int worker) {
        return perTask.estimate(worker);
    }

    /** Samples of {@code worker}'s per-task term so far (for tests and diagnostics). */
    public long perTaskSamples(int worker) {
        return perTask.count(worker);
    }

    /**
     * Everything the model has learned, per worker index {@code 0..n-1} (the statistics' indexes):
     * whether each worker's first round was seen, and both terms. The arrivals of the round being
     * observed are scratch, not kept.
     *
     * @param seen     per worker, whether its first round (the one-time costs) has been seen
     * @param perRound the per-round term
     * @param perTask  the per-task term
     */
    public record State(boolean[] seen, TermState perRound, TermState perTask) {
        public State {
            if (perRound.workers() != seen.length || perTask.workers() != seen.length) {
                throw new IllegalArgumentException("overhead model state has terms of another fleet than its flags");
            }
        }

        public int workers() {
            return seen.length;
        }

        /** Big-endian: the number of workers, their seen flags (one byte each), then each term. */
        public byte[] toBytes() {
            ByteBuffer out = ByteBuffer.allocate(Integer.BYTES + workers() + 2 * TermState.size(workers()));
            out.putInt(workers());
            for (boolean s : seen) {
                out.put((byte) (s ? 1 : 0));
            }
            perRound.write(out);
            perTask.write(out);
            return out.array();
        }

        /** Reads {@link #toBytes()}'s encoding, refusing truncated bytes, negative counts and NaN. */
        public static State fromBytes(byte[] bytes) {
            return StateReader.read(bytes, "overhead model state", in -> {
                int n = in.count(1 + 2 * TermState.PER_WORKER, "workers");
                boolean[] seen = new boolean[n];
                for (int w = 0; w < n; w++) {
                    seen[w] = in.flag("worker " + w + "'s seen flag");
                }
                return new State(seen, TermState.read(in, n, "per-round"), TermState.read(in, n, "per-task"));
            });
        }

        /** What belongs to no worker: the fleet's estimates, over no worker. */
        State withoutWorkers() {
            return new State(new boolean[0], perRound.withoutWorkers(), perTask.withoutWorkers());
        }

        /**
         * Undoes {@link #withoutWorkers()} and {@link OverheadModel#slice}: the state of
         * {@code slices.size()} workers, worker {@code w}'s from {@code slices.get(w)}, the fleet's from {@code shared}.
         *
         * @throws IllegalArgumentException if {@code shared} covers workers or a slice is not one
         *     worker's alone
         */
        static State join(State shared, List<State> slices) {
            if (shared.workers() != 0) {
                throw new IllegalArgumentException(
                        "the shared overhead model state covers " + shared.workers() + " workers, not 0");
            }
            int n = slices.size();
            boolean[] seen = new boolean[n];
            for (int w = 0; w < n; w++) {
                State slice = slices.get(w);
                if (slice.workers() != 1
                        || slice.perRound().hasFleet()
                        || slice.perTask().hasFleet()) {
                    throw new IllegalArgumentException("worker " + w + "'s overhead model state covers "
                            + slice.workers() + " workers or has the fleet's terms; it must be 1 worker's alone");
                }
                seen[w] = slice.seen[0];
            }
            return new State(
                    seen,
                    TermState.join(
                            shared.perRound(),
                            slices.stream().map(State::perRound).toList()),
                    TermState.join(
                            shared.perTask(),
                            slices.stream().map(State::perTask).toList()));
        }
    }

    /**
     * One term: each worker's exponentially weighted mean and sample count, and the fleet's.
     *
     * @param estimate    per worker, its mean ({@code >= 0})
     * @param count       per worker, its samples
     * @param pooled      the fleet's mean
     * @param pooledCount the fleet's samples
     */
    public record TermState(double[] estimate, long[] count, double pooled, long pooledCount) {
        static final int PER_WORKER = Double.BYTES + Long.BYTES;

        public TermState {
            if (estimate.length != count.length) {
                throw new IllegalArgumentException(
                        "overhead term state has " + estimate.length + " estimates for " + count.length + " counts");
            }
        }

        public int workers() {
            return estimate.length;
        }

        static int size(int workers) {
            return Double.BYTES + Long.BYTES + PER_WORKER * workers;
        }

        void write(ByteBuffer out) {
            out.putDouble(pooled).putLong(pooledCount);
            for (int w = 0; w < workers(); w++) {
                out.putDouble(estimate[w]).putLong(count[w]);
            }
        }

        static TermState read(StateReader in, int workers, String term) {
            double pooled = in.nonNegative("the fleet's " + term + " term");
            long pooledCount = in.nonNegativeLong("the fleet's " + term + " sample count");
            double[] estimate = new double[workers];
            long[] count = new long[workers];
            for (int w = 0; w < workers; w++) {
                estimate[w] = in.nonNegative("worker " + w + "'s " + term + " term");
                count[w] = in.nonNegativeLong("worker " + w + "'s " + term + " sample count");
            }
            return new TermState(estimate, count, pooled, pooledCount);
        }

        /** The fleet's estimate and count, over no worker. */
        TermState withoutWorkers() {
            return new TermState(new double[0], new long[0], pooled, pooledCount);
        }

        boolean hasFleet() {
            return pooled != 0 || pooledCount != 0;
        }

        /** Undoes {@link #withoutWorkers()} and {@code Term#slice}, for slices already checked to be one worker's. */
        static TermState join(TermState shared, List<TermState> slices) {
            int n = slices.size();
            double[] estimate = new double[n];
            long[] count = new long[n];
            for (int w = 0; w < n; w++) {
                estimate[w] = slices.get(w).estimate()[0];
                count[w] = slices.get(w).count()[0];
            }
            return new TermState(estimate, count, shared.pooled(), shared.pooledCount());
        }
    }

    /** What the model has learned about workers {@code 0..workers-1}. */
    public State snapshot(int workers) {
        return new State(Arrays.copyOf(seen, workers), perRound.snapshot(workers), perTask.snapshot(workers));
    }

    /**
     * Worker {@code w}'s slice of a {@link #snapshot}, read in place: its flag and its own estimates
     * (zeros for a worker not seen yet, as a snapshot pads it), without the fleet's, which every
     * worker moves.
     */
    State slice(int w) {
        return new State(new boolean[] {w < seen.length && seen[w]}, perRound.slice(w), perTask.slice(w));
    }

    /** Continues from {@code state}, as if this model had observed what its writer had. */
    public void restore(State state) {
        seen = state.seen().clone();
        lastArrival = new double[seen.length]; // the two grow together
        perRound.restore(state.perRound());
        perTask.restore(state.perTask());
    }

    private void ensureCapacity(RoundOutcome outcome) {
        int needed = 0;
        for (int k = 0; k < outcome.workerCount(); k++) {
            needed = Math.max(needed, outcome.worker(k) + 1);
        }
        if (lastArrival.length < needed) {
            lastArrival = Arrays.copyOf(lastArrival, Math.max(needed, 2 * lastArrival.length));
            seen = Arrays.copyOf(seen, lastArrival.length);
        }
    }

    /** One term: an exponentially weighted mean per worker and one over the whole fleet. */
    private static final class Term {
        private double[] estimate = new double[0];
        private long[] count = new long[0];
        private double pooled;
        private long pooledCount;

        void add(int worker, double sample) {
            if (estimate.length <= worker) {
                int size = Math.max(worker + 1, 2 * estimate.length);
                estimate = Arrays.copyOf(estimate, size);
                count = Arrays.copyOf(count, size);
            }
            double x = Math.max(0, sample);
            if (count[worker] >= TRUSTED_AFTER && estimate[worker] > 0) {
                x = Math.min(x, OUTLIER_FACTOR * estimate[worker]);
            }
            estimate[worker] += (x - estimate[worker]) / Math.min(++count[worker], MEMORY);
            pooled += (x - pooled) / Math.min(++pooledCount, MEMORY);
        }

        /** The worker's estimate, shrunk towards the fleet's in proportion to its samples. */
        double estimate(int worker) {
            long n = worker < count.length ? count[worker] : 0;
            return n == 0 ? pooled : (n * estimate[worker] + PRIOR * pooled) / (n + PRIOR);
        }

        long count(int worker) {
            return worker < count.length ? count[worker] : 0;
        }

        TermState snapshot(int workers) {
            return new TermState(Arrays.copyOf(estimate, workers), Arrays.copyOf(count, workers), pooled, pooledCount);
        }

        /** Worker {@code w}'s estimate and count alone (zeros if it has none yet); the fleet's are left at zero. */
        TermState slice(int w) {
            boolean seen = w < estimate.length;
            return new TermState(new double[] {seen ? estimate[w] : 0}, new long[] {seen ? count[w] : 0}, 0, 0);
        }

        void restore(TermState state) {
            estimate = state.estimate().clone();
            count = state.count().clone();
            pooled = state.pooled();
            pooledCount = state.pooledCount();
        }
    }
}
