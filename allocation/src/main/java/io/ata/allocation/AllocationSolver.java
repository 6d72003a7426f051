package io.ata.allocation;

import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * Exact solver for ATA's allocation subproblem: {@code argmin_{a in N^m, sum a = B} max_i a_i s_i}
 * for strictly positive scores {@code s}.
 *
 * <p>The optimum is the {@code B}-th smallest value of the multiset {@code {k * s_i : k >= 1}}
 * (greedy water-filling takes exactly those). {@link #solve} finds it without a heap: one pass
 * bounds the threshold {@code t*} from above and keeps only the workers scoring below the bound
 * (all others get nothing), then it brackets {@code t*} between {@code B / H} and
 * {@code (B + m') / H} ({@code H = sum 1/s_i} over the {@code m'} kept workers), narrows the bracket
 * with interpolation steps that each cost one pass over the kept workers, and finally selects the
 * few values left inside the bracket. {@link #waterFill} is the textbook heap
 * version, kept as the reference and as a fallback.
 *
 * <p>An instance owns scratch buffers and is not thread-safe; use one per thread.
 */
public final class AllocationSolver {

    /** Stop narrowing once this few candidate values are left inside the bracket. */
    private static final int SMALL_BRACKET = 64;

    private static final int MAX_NARROWING_PASSES = 60;

    private double[] activeScore = new double[0];
    private double[] activeInverse = new double[0];
    private int[] activeWorker = new int[0];
    private double[] candidateValue = new double[SMALL_BRACKET * 2];
    private int[] candidateWorker = new int[SMALL_BRACKET * 2];
    private long[] candidateKey = new long[SMALL_BRACKET * 2];
    /** Calls that needed the heap fallback (rounding pathologies): zero in every case we know of. */
    private long fallbacks;

    /**
     * Writes an optimal allocation of {@code batch} tasks over the first {@code m} scores into
     * {@code allocation[0..m)} and returns its value {@code max_i a_i s_i}.
     *
     * @throws IllegalArgumentException if a score is not finite and positive, or {@code m == 0}
     */
    public double solve(double[] scores, int m, int batch, int[] allocation) {
        if (batch <= 0) {
            Arrays.fill(allocation, 0, m, 0);
            return 0;
        }
        if (m <= 0) {
            throw new IllegalArgumentException("no worker to allocate " + batch + " tasks to");
        }
        double harmonic = 0;
        double smallest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < m; i++) {
            double s = scores[i];
            if (!(s > 0) || s == Double.POSITIVE_INFINITY) {
                throw new IllegalArgumentException("score " + i + " must be finite and > 0, was " + s);
            }
            harmonic += 1.0 / s;
            smallest = Math.min(smallest, s);
        }
        // count(t) = sum floor(t / s_i) exceeds t*H - m, so count >= B at (B+m)/H; giving every
        // task to the fastest worker shows t* <= B * s_min. Workers scoring above the bound get
        // nothing: keep only the others (often a small fraction when n >> B).
        double bound = Math.min((batch + (double) m) / harmonic, batch * smallest) * (1 + 1e-9);
        int active = compactBelow(scores, m, bound);
        harmonic = 0;
        for (int k = 0; k < active; k++) {
            harmonic += activeInverse[k];
        }
        double lo = batch / harmonic * (1 - 1e-9);
        double hi = Math.min(bound, (batch + (double) active) / harmonic * (1 + 1e-9));
        long countLo = approximateCount(lo, active, batch);
        long countHi = approximateCount(hi, active, batch);
        if (countLo >= batch || countHi < batch) {
            fallbacks++;
            return waterFill(scores, m, batch, allocation); // rounding pathologies only
        }
        boolean bisectNext = false;
        for (int pass = 0; pass < MAX_NARROWING_PASSES && countHi - countLo > SMALL_BRACKET; pass++) {
            // count(t) is close to linear in t when many workers are active: aim just past the
            // B-th value; when that fails to halve the bracket, bisect once.
            double t =
                    bisectNext ? Double.NaN : lo + (hi - lo) * ((batch - countLo) + 0.5) / (double) (countHi - countLo);
            if (!(t > lo && t < hi)) {
                t = 0.5 * (lo + hi);
            }
            long before = countHi - countLo;
            long c = approximateCount(t, active, batch);
            if (c < batch) {
                lo = t;
                countLo = c;
            } else {
                hi = t;
                countHi = c;
            }
            bisectNext = !bisectNext && (countHi - countLo) * 2 > before;
        }
        // The bracket came from approximate counts (t * (1/s) may round across an integer); the
        // selection counts exactly. Should the two disagree at the edges, widen by a hair and retry.
        for (int attempt = 0; attempt < 4; attempt++) {
            Arrays.fill(allocation, 0, m, 0);
            if (selectInsideBracket(active, batch, lo, hi, allocation)) {
                double value = 0;
                for (int k = 0; k < active; k++) {
                    int i = activeWorker[k];
                    value = Math.max(value, allocation[i] * scores[i]);
                }
                return value;
            }
            lo *= 1 - 1e-12;
            hi = Math.min(bound, hi * (1 + 1e-12));
        }
        fallbacks++;
        return waterFill(scores, m, batch, allocation);
    }

    /** Copies the workers with {@code s_i <= bound} into the active arrays; returns how many. */
    private int compactBelow(double[] scores, int m, double bound) {
        if (activeScore.length < m) {
            int size = Math.max(m, activeScore.length * 2);
            activeScore = new double[size];
            activeInverse = new double[size];
            activeWorker = new int[size];
        }
        int active = 0;
        for (int i = 0; i < m; i++) {
            double s = scores[i];
            if (s <= bound) {
                activeScore[active] = s;
                activeInverse[active] = 1.0 / s;
                activeWorker[active++] = i;
            }
        }
        return active;
    }

    /** How many calls fell back to heap water-filling (for tests and diagnostics). */
    public long fallbacks() {
        return fallbacks;
    }

    /** {@code sum_i min(floor(t / s_i), batch)}: enough precision to bracket, never to allocate. */
    private long approximateCount(double t, int active, int batch) {
        long total = 0;
        for (int k = 0; k < active; k++) {
            double c = t * activeInverse[k];
            total += c >= batch ? batch : (long) c;
        }
        return total;
    }

    /**
     * Final pass: every active worker takes its values {@code k * s_i <= lo}, then the remaining
     * tasks go to the smallest values in {@code (lo, hi]}. Values are compared exactly as the
     * products {@code k * s_i}, so the result is the exact water-filling allocation.
     */
    private boolean selectInsideBracket(int active, int batch, double lo, double hi, int[] allocation) {
        long taken = 0;
        int candidates = 0;
        for (int j = 0; j < active; j++) {
            double s = activeScore[j];
            int i = activeWorker[j];
            long k = exactCount(lo, s, activeInverse[j], batch);
            allocation[i] = (int) k;
            taken += k;
            for (long next = k + 1; next <= batch; next++) {
                double v = next * s;
                if (v > hi) {
                    break;
                }
                if (candidates == candidateValue.length) {
                    growCandidates();
                }
                candidateValue[candidates] = v;
                candidateWorker[candidates] = i;
                candidates++;
            }
        }
        long remaining = batch - taken;
        if (remaining < 0 || remaining > candidates) {
            return false;
        }
        if (remaining == 0) {
            return true;
        }
        // Order candidates by value, ties by worker index.
        for (int c = 0; c < candidates; c++) {
            candidateKey[c] = c;
        }
        sortCandidateIndices(candidates);
        for (int r = 0; r < remaining; r++) {
            allocation[candidateWorker[(int) candidateKey[r]]]++;
        }
        return true;
    }

    private static long exactCount(double t, double s, double inv, int batch) {
        double approx = t * inv;
        if (approx >= batch + 1L) {
            return batch + 1L;
        }
        long k = (long) approx;
        while (k > 0 && k * s > t) {
            k--;
        }
        while ((k + 1) * s <= t && k <= batch) {
            k++;
        }
        return k;
    }

    private void sortCandidateIndices(int count) {
        if (count > 2 * SMALL_BRACKET) {
            // many near-equal scores can leave many candidates: O(c log c), never quadratic
            Integer[] order = new Integer[count];
            for (int c = 0; c < count; c++) {
                order[c] = c;
            }
            Arrays.sort(order, (x, y) -> greater(x, y) ? 1 : greater(y, x) ? -1 : 0);
            for (int c = 0; c < count; c++) {
                candidateKey[c] = order[c];
            }
            return;
        }
        // insertion sort is fastest for the few dozen candidates that normally remain
        for (int a = 1; a < count; a++) {
            long key = candidateKey[a];
            int ka = (int) key;
            int b = a - 1;
            while (b >= 0 && greater((int) candidateKey[b], ka)) {
                candidateKey[b + 1] = candidateKey[b];
                b--;
            }
            candidateKey[b + 1] = key;
        }
    }

    private boolean greater(int x, int y) {
        double vx = candidateValue[x];
        double vy = candidateValue[y];
        return vx > vy || (vx == vy && candidateWorker[x] > candidateWorker[y]);
    }

    private void growCandidates() {
        int size = candidateValue.length * 2;
        candidateValue = Arrays.copyOf(candidateValue, size);
        candidateWorker = Arrays.copyOf(candidateWorker, size);
        candidateKey = Arrays.copyOf(candidateKey, size);
    }

    /**
     * Writes an optimal allocation of {@code batch} tasks for the costs {@code o_i + a_i s_i} of a
     * worker given {@code a_i >= 1} tasks (a worker given none costs nothing) into
     * {@code allocation[0..m)} and returns its value {@code max_{a_i > 0} (o_i + a_i s_i)}.
     *
     * <p>Each worker's costs rise with {@code a_i}, so taking the {@code batch} smallest values of
     * {@code {o_i + k s_i : k >= 1}} is optimal, as for {@link #solve(double[], int, int, int[])},
     * which this is when every offset is zero. With offsets the heap water-fill takes them:
     * O(m + B log m), for the live broker's fleets; the simulator has no offsets.
     *
     * @throws IllegalArgumentException if a score is not finite and positive, an offset not
     *     finite, an offset plus its score not positive, or {@code m == 0}
     */
    public double solve(double[] scores, double[] offsets, int m, int batch, int[] allocation) {
        boolean allZero = true;
        for (int i = 0; i < m; i++) {
            double s = scores[i];
            double o = offsets[i];
            if (!(s > 0) || s == Double.POSITIVE_INFINITY) {
                throw new IllegalArgumentException("score " + i + " must be finite and > 0, was " + s);
            }
            if (!Double.isFinite(o) || !(o + s > 0)) {
                throw new IllegalArgumentException(
                        "offset " + i + " must be finite with offset + score > 0, was " + o + " (score " + s + ")");
            }
            allZero &= o == 0;
        }
        if (allZero || batch <= 0) {
            return solve(scores, m, batch, allocation); // also refuses m == 0
        }
        return waterFill(scores, offsets, m, batch, allocation);
    }

    /**
     * Reference solver: give tasks one at a time to the worker minimising {@code (a_i + 1) s_i}.
     * O(m + B log m). Ties go to the lower worker index.
     */
    public static double waterFill(double[] scores, int m, int batch, int[] allocation) {
        return waterFill(scores, new double[m], m, batch, allocation);
    }

    /**
     * Reference solver with offsets: give tasks one at a time to the worker minimising
     * {@code o_i + (a_i + 1) s_i}. Ties go to the lower worker index.
     */
    public static double waterFill(double[] scores, double[] offsets, int m, int batch, int[] allocation) {
        Arrays.fill(allocation, 0, m, 0);
        if (batch <= 0) {
            return 0;
        }
        PriorityQueue<long[]> heap = new PriorityQueue<>(Math.max(1, m), (x, y) -> {
            int c = Double.compare(Double.longBitsToDouble(x[0]), Double.longBitsToDouble(y[0]));
            return c != 0 ? c : Long.compare(x[1], y[1]);
        });
        for (int i = 0; i < m; i++) {
            heap.add(new long[] {Double.doubleToLongBits(offsets[i] + scores[i]), i});
        }
        double value = 0;
        for (int t = 0; t < batch; t++) {
            long[] top = heap.poll();
            int i = (int) top[1];
            allocation[i]++;
            value = Math.max(value, offsets[i] + allocation[i] * scores[i]);
            top[0] = Double.doubleToLongBits(offsets[i] + (allocation[i] + 1) * scores[i]);
            heap.add(top);
        }
        return value;
    }

    /** The proxy loss {@code max_i a_i mu_i} of allocation {@code a} under means {@code mu}. */
    public static double proxyLoss(int[] allocation, double[] means, int m) {
        double value = 0;
        for (int i = 0; i < m; i++) {
            if (allocation[i] > 0) {
                value = Math.max(value, allocation[i] * means[i]);
            }
        }
        return value;
    }
}
