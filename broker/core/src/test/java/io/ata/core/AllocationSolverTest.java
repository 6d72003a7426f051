package io.ata.core;

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
}
