package io.ata.allocation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

class AllocationSolverTest {
    /** A new one for each test (JUnit makes an instance per test), so fallbacks() counts one test's calls. */
    private final AllocationSolver solver = new AllocationSolver();

    /** min over all a with sum a = B of max_i a_i s_i, by enumeration. */
    private static double bruteForce(double[] s, int batch) {
        return enumerate(s, 0, batch, 0);
    }

    private static double enumerate(double[] s, int i, int left, double soFar) {
        if (i == s.length - 1) {
            return Math.max(soFar, left * s[i]);
        }
        double best = Double.POSITIVE_INFINITY;
        for (int a = 0; a <= left; a++) {
            best = Math.min(best, enumerate(s, i + 1, left - a, Math.max(soFar, a * s[i])));
        }
        return best;
    }

    /** The scores of m workers, drawn in worker order. */
    private static double[] scores(int m, IntToDoubleFunction score) {
        double[] s = new double[m];
        for (int i = 0; i < m; i++) {
            s[i] = score.applyAsDouble(i);
        }
        return s;
    }

    private static void assertValidAllocation(int[] a, int m, int batch) {
        int total = 0;
        for (int i = 0; i < m; i++) {
            assertEquals(true, a[i] >= 0, "negative task count");
            total += a[i];
        }
        assertEquals(batch, total, "allocation must add up to the batch");
    }

    @Test
    void matchesBruteForceOnRandomSmallInstances() {
        SplittableRandom rng = new SplittableRandom(42);
        for (int trial = 0; trial < 3000; trial++) {
            int m = 1 + rng.nextInt(5);
            int batch = 1 + rng.nextInt(9);
            // integer scores produce many ties, continuous ones none
            boolean integers = trial % 2 == 0;
            double[] s = scores(m, i -> integers ? 1 + rng.nextInt(6) : 0.01 + 10 * rng.nextDouble());
            int[] a = new int[m];
            double value = solver.solve(s, m, batch, a);
            assertValidAllocation(a, m, batch);
            double expected = bruteForce(s, batch);
            assertEquals(expected, value, 1e-12 * expected, () -> "scores " + Arrays.toString(s) + " B=" + batch);
            assertEquals(value, AllocationSolver.proxyLoss(a, s, m), 0, "returned value is the allocation's loss");
            int[] reference = new int[m];
            assertEquals(expected, AllocationSolver.waterFill(s, m, batch, reference), 1e-12 * expected);
        }
    }

    @Test
    void equalsWaterFillingOnLargeInstancesIncludingTies() {
        SplittableRandom rng = new SplittableRandom(7);
        int[][] shapes = {{50, 23}, {1000, 100}, {200, 5000}, {5000, 1000}, {3, 10000}, {10000, 10}};
        for (int[] shape : shapes) {
            int m = shape[0];
            int batch = shape[1];
            for (int variant = 0; variant < 3; variant++) {
                int kind = variant;
                double[] s = scores(m, i -> switch (kind) {
                    case 0 -> 1 + rng.nextInt(20); // heavy ties
                    case 1 -> Math.exp(rng.nextGaussian() * 3); // wide range
                    default -> 58.0 * (i + 1); // the linear model
                });
                int[] fast = new int[m];
                int[] reference = new int[m];
                double v1 = solver.solve(s, m, batch, fast);
                double v2 = AllocationSolver.waterFill(s, m, batch, reference);
                assertEquals(v2, v1, 0, "optimal value, m=" + m + " B=" + batch);
                assertArrayEquals(reference, fast, "same tie-breaking as water-filling, m=" + m + " B=" + batch);
            }
        }
    }

    @Test
    void linearModelOracleIsThePapersAllocation() {
        double[] mu = new double[51];
        for (int j = 1; j <= 51; j++) {
            mu[j - 1] = 58.0 * j;
        }
        int[] a = new int[51];
        double value = solver.solve(mu, 51, 23, a);
        assertEquals(522.0, value, 1e-9, "FTA's proxy value in the spec");
        int[] expected = new int[51];
        int[] head = {9, 4, 3, 2, 1, 1, 1, 1, 1};
        System.arraycopy(head, 0, expected, 0, head.length);
        assertArrayEquals(expected, a);
    }

    @Test
    void rejectsNonPositiveScoresAndEmptyFleets() {
        assertThrows(IllegalArgumentException.class, () -> solver.solve(new double[] {1, 0}, 2, 3, new int[2]));
        assertThrows(IllegalArgumentException.class, () -> solver.solve(new double[] {1, -2}, 2, 3, new int[2]));
        assertThrows(
                IllegalArgumentException.class, () -> solver.solve(new double[] {1, Double.NaN}, 2, 3, new int[2]));
        assertThrows(IllegalArgumentException.class, () -> solver.solve(new double[0], 0, 3, new int[0]));
        int[] a = {5, 5};
        assertEquals(0, solver.solve(new double[] {1, 2}, 2, 0, a));
        assertArrayEquals(new int[] {0, 0}, a);
    }

    /** Certificate of optimality: no allocation reaches below {@code value}, i.e. fewer than B values are below it. */
    private static void assertOptimal(double[] s, int batch, int[] a, double value) {
        long below = 0;
        long total = 0;
        for (int i = 0; i < s.length; i++) {
            total += a[i];
            long k = (long) Math.floor(value / s[i]);
            while (k > 0 && k * s[i] >= value) {
                k--;
            }
            while ((k + 1) * s[i] < value) {
                k++;
            }
            below += k;
        }
        assertEquals(batch, total);
        assertTrue(below < batch, "an allocation with max below " + value + " exists");
    }

    @Test
    void hugeBatchesWithTiedScoresStayOnTheFastPath() {
        // review finding: integer scores and huge B used to round the bracket below t* and fall
        // back to the O(B log m) heap; and B = 2^31 - 1 overflowed
        SplittableRandom rng = new SplittableRandom(99);
        for (int trial = 0; trial < 300; trial++) {
            int m = 2 + rng.nextInt(120);
            double[] s = scores(m, i -> 1 + rng.nextInt(10));
            int batch = trial == 0 ? Integer.MAX_VALUE : 1_000_000 + rng.nextInt(1 << 30);
            int[] a = new int[m];
            double value = solver.solve(s, m, batch, a);
            assertOptimal(s, batch, a, value);
        }
        assertEquals(0, solver.fallbacks(), "every call took the threshold path");
    }

    @Test
    void manyNearlyEqualScoresAreSortedNotInsertionSorted() {
        int m = 50_000;
        SplittableRandom rng = new SplittableRandom(5);
        double[] s = scores(m, i -> 1 + 1e-13 * rng.nextDouble());
        int[] a = new int[m];
        int[] reference = new int[m];
        assertEquals(AllocationSolver.waterFill(s, m, 40, reference), solver.solve(s, m, 40, a), 0);
        assertArrayEquals(reference, a);
        assertEquals(0, solver.fallbacks());
    }

    /** min over all a with sum a = B of max over a_i > 0 of (o_i + a_i s_i), by enumeration. */
    private static double bruteForceWithOffsets(double[] s, double[] o, int i, int left, double soFar) {
        if (i == s.length) {
            return left == 0 ? soFar : Double.POSITIVE_INFINITY;
        }
        double best = Double.POSITIVE_INFINITY;
        for (int a = 0; a <= left; a++) {
            double cost = a == 0 ? soFar : Math.max(soFar, o[i] + a * s[i]);
            best = Math.min(best, bruteForceWithOffsets(s, o, i + 1, left - a, cost));
        }
        return best;
    }

    @Test
    void withOffsetsMatchesBruteForceOnRandomSmallInstances() {
        SplittableRandom rng = new SplittableRandom(7);
        for (int trial = 0; trial < 2000; trial++) {
            int m = 1 + rng.nextInt(5);
            int batch = 1 + rng.nextInt(8);
            double[] s = scores(m, i -> 0.5 + 10 * rng.nextDouble());
            // offsets may be negative, down to just above -s_i (a worker's first task still costs > 0)
            double[] o = scores(m, i -> -0.9 * s[i] + 20 * rng.nextDouble());
            int[] a = new int[m];
            double value = solver.solve(s, o, m, batch, a);
            assertValidAllocation(a, m, batch);
            double worst = 0;
            for (int i = 0; i < m; i++) {
                if (a[i] > 0) {
                    worst = Math.max(worst, o[i] + a[i] * s[i]);
                }
            }
            assertEquals(worst, value, 1e-9, "the value is the allocation's cost");
            assertEquals(bruteForceWithOffsets(s, o, 0, batch, 0), value, 1e-9, "trial " + trial);
        }
    }

    @Test
    void aPerRoundOffsetMovesTasksOffAWorkerThatIsFastPerTask() {
        double[] s = {1, 3};
        int[] a = new int[2];
        solver.solve(s, new double[] {0, 0}, 2, 4, a);
        assertArrayEquals(new int[] {3, 1}, a, "without offsets: 3 x 1 = 3 against 1 x 3");
        solver.solve(s, new double[] {5, 0}, 2, 4, a);
        assertArrayEquals(new int[] {2, 2}, a, "worker 0 pays 5 a round: 5 + 2 = 7 against 2 x 3 = 6");
    }

    @Test
    void zeroOffsetsGiveTheSolversAllocationExactly() {
        SplittableRandom rng = new SplittableRandom(3);
        for (int trial = 0; trial < 200; trial++) {
            int m = 1 + rng.nextInt(40);
            int batch = 1 + rng.nextInt(60);
            double[] s = scores(m, i -> 0.01 + 10 * rng.nextDouble());
            int[] plain = new int[m];
            int[] withZeros = new int[m];
            double v = solver.solve(s, m, batch, plain);
            assertEquals(v, solver.solve(s, new double[m], m, batch, withZeros));
            assertArrayEquals(plain, withZeros);
        }
    }

    @Test
    void refusesOffsetsThatMakeAFirstTaskFreeOrThatAreNotFinite() {
        int[] a = new int[2];
        assertThrows(
                IllegalArgumentException.class, () -> solver.solve(new double[] {1, 1}, new double[] {-1, 0}, 2, 3, a));
        assertThrows(
                IllegalArgumentException.class,
                () -> solver.solve(new double[] {1, 1}, new double[] {Double.NaN, 0}, 2, 3, a));
    }
}
