package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundRandom;
import io.ata.allocation.WorkerStats;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * ATA-Empirical's relative width {@code 2 * eta} with {@code eta} estimated online instead of
 * supplied by the user.
 *
 * <p>{@code eta = max_i alpha_i / mu_i} is the sub-exponential (psi_1) norm of the relative
 * deviation {@code (X_i - mu_i) / mu_i}. We keep a uniform reservoir of observed durations and,
 * on a doubling schedule, set {@code eta} to the empirical psi_1 norm of the pooled relative
 * deviations {@code (x - mu_hat_w) / mu_hat_w}: the smallest {@code C} with
 * {@code mean(exp(|y| / C)) <= 2}. Pooling makes the estimate stable with few samples per worker;
 * it equals the paper's max when workers share a shape (as in every paper model) and is an
 * average of the ratios otherwise. Until enough samples exist, {@code eta = 1}, the value for
 * exponential-like tails.
 */
public final class EstimatedRelativeWidth implements ConfidenceWidth {
    static final double INITIAL_ETA = 1.0;
    private static final int RESERVOIR = 4096;
    private static final int FIRST_REFRESH = 64;
    /** Deviations from workers with fewer observations are biased towards zero; skip them. */
    private static final long MIN_WORKER_COUNT = 8;

    private final double widthMultiplier;
    private final Form form;
    private final int[] sampleWorker = new int[RESERVOIR];
    private final double[] sample = new double[RESERVOIR];
    private final double[] deviations = new double[RESERVOIR];
    private final long seed;
    private int samples;
    private long seen;
    private long nextRefresh = FIRST_REFRESH;
    private double eta = INITIAL_ETA;
    private double cRel;

    /**
     * @param widthMultiplier {@code 2} for the paper convention ({@code c_rel = 2 eta})
     * @param form            how the width becomes a score
     */
    public EstimatedRelativeWidth(double widthMultiplier, Form form, long seed) {
        this.widthMultiplier = widthMultiplier;
        this.form = form;
        this.seed = seed;
        this.cRel = widthMultiplier * eta;
    }

    public double eta() {
        return eta;
    }

    /** Everything this width has learned, to be stored and restored with the statistics. */
    public record State(double eta, long seen, long nextRefresh, int[] sampleWorkers, double[] samples) {
        /** The version of the {@link #toBytes()} encoding. */
        public static final int VERSION = 1;

        private static final int HEADER = Double.BYTES + 2 * Long.BYTES + Integer.BYTES;
        private static final int PER_SAMPLE = Integer.BYTES + Double.BYTES;

        public State {
            if (sampleWorkers.length != samples.length) {
                throw new IllegalArgumentException("estimator state has " + sampleWorkers.length
                        + " sample workers for " + samples.length + " samples");
            }
        }

        /**
         * Version 1, big-endian: {@code eta}, {@code seen}, {@code nextRefresh}, the number of
         * samples, then each sample's worker and duration.
         */
        public byte[] toBytes() {
            ByteBuffer out = ByteBuffer.allocate(HEADER + PER_SAMPLE * samples.length);
            out.putDouble(eta).putLong(seen).putLong(nextRefresh).putInt(samples.length);
            for (int k = 0; k < samples.length; k++) {
                out.putInt(sampleWorkers[k]).putDouble(samples[k]);
            }
            return out.array();
        }

        /**
         * Reads {@link #toBytes()}'s encoding, refusing truncated or left-over bytes, more samples
         * than the reservoir holds, and values no estimator reaches.
         *
         * @throws IllegalArgumentException "malformed estimator state: ..." saying what is wrong
         */
        public static State fromBytes(byte[] bytes) {
            return StateReader.read(bytes, "estimator state", in -> {
                double eta = in.nonNegative("eta");
                long seen = in.nonNegativeLong("the durations seen");
                long nextRefresh = in.nonNegativeLong("the next refresh");
                int count = in.count(PER_SAMPLE, "samples");
                if (count > RESERVOIR) {
                    throw new IllegalArgumentException(count + " samples are more than the " + RESERVOIR + " it holds");
                }
                if (seen < count) {
                    throw new IllegalArgumentException(seen + " durations seen for " + count + " samples");
                }
                int[] workers = new int[count];
                double[] samples = new double[count];
                for (int k = 0; k < count; k++) {
                    workers[k] = in.intIn(0, Integer.MAX_VALUE, "sample " + k + "'s worker");
                    samples[k] = in.nonNegative("sample " + k + "'s duration");
                }
                return new State(eta, seen, nextRefresh, workers, samples);
            });
        }
    }

    public State snapshot() {
        return new State(eta, seen, nextRefresh, Arrays.copyOf(sampleWorker, samples), Arrays.copyOf(sample, samples));
    }

    public void restore(State state) {
        if (state.samples().length > RESERVOIR) {
            throw new IllegalArgumentException("estimator state holds " + state.samples().length + " samples");
        }
        eta = state.eta();
        cRel = widthMultiplier * eta;
        seen = state.seen();
        nextRefresh = state.nextRefresh();
        samples = state.samples().length;
        System.arraycopy(state.sampleWorkers(), 0, sampleWorker, 0, samples);
        System.arraycopy(state.samples(), 0, sample, 0, samples);
    }

    @Override
    public double constant() {
        return cRel;
    }

    @Override
    public Form form() {
        return form;
    }

    @Override
    public void observe(WorkerStats stats, RoundOutcome outcome) {
        SplittableRandom rng = null;
        for (int k = 0; k < outcome.durationCount(); k++) {
            seen++;
            if (samples < RESERVOIR) {
                sampleWorker[samples] = outcome.durationWorker(k);
                sample[samples++] = outcome.duration(k);
            } else {
                if (rng == null) {
                    rng = RoundRandom.of(seed, outcome.round(), RoundRandom.RESERVOIR);
                }
                long j = rng.nextLong(seen); // Algorithm R: keep each of the seen values with equal chance
                if (j < RESERVOIR) {
                    sampleWorker[(int) j] = outcome.durationWorker(k);
                    sample[(int) j] = outcome.duration(k);
                }
            }
        }
        if (seen >= nextRefresh) {
            nextRefresh = seen * 2;
            refresh(stats);
        }
    }

    /**
     * Drops {@code worker}'s durations from the reservoir: its statistics restarted (its speed
     * changed), and its old durations measured against its new mean would read as huge deviations
     * and inflate {@code eta}, widening every worker's bound. The freed slots fill with the next
     * durations.
     */
    public void forget(int worker) {
        int kept = 0;
        for (int k = 0; k < samples; k++) {
            if (sampleWorker[k] != worker) {
                sampleWorker[kept] = sampleWorker[k];
                sample[kept++] = sample[k];
            }
        }
        samples = kept;
    }

    private void refresh(WorkerStats stats) {
        int m = 0;
        for (int k = 0; k < samples; k++) {
            int w = sampleWorker[k];
            if (stats.count(w) >= MIN_WORKER_COUNT) {
                double mu = stats.mean(w);
                if (mu > 0) {
                    deviations[m++] = (sample[k] - mu) / mu;
                }
            }
        }
        if (m >= FIRST_REFRESH) {
            eta = Psi1Norm.of(deviations, m);
            cRel = widthMultiplier * eta;
        }
    }

    @Override
    public String describe() {
        return String.format(
                "eta=estimated(now %.4g) c_rel=%.4g*eta form=%s",
                eta, widthMultiplier, form.name().toLowerCase(java.util.Locale.ROOT));
    }
}
