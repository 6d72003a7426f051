package io.ata.policy;

import io.ata.core.RoundOutcome;
import java.util.Arrays;

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
    }
}
