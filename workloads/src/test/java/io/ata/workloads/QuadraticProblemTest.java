package io.ata.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class QuadraticProblemTest {
    @Test
    void gradientVanishesAtTheComputedOptimumAndFStarIsTheMinimum() {
        QuadraticProblem p = new QuadraticProblem(10, 0.5, 0);
        double[] x = p.start();
        double[] g = new double[10];
        double before = p.suboptimality(x);
        SplittableRandom rng = new SplittableRandom(1);
        for (int k = 0; k < 20_000; k++) {
            p.step(x, 1, rng, g);
        }
        assertTrue(before > 1, "starts far from the optimum: " + before);
        assertEquals(0, p.suboptimality(x), 1e-9, "noise-free GD reaches f*");
        p.gradient(x, g);
        for (double gi : g) {
            assertEquals(0, gi, 1e-6);
        }
    }

    @Test
    void stochasticGradientIsUnbiasedWithTheStatedNoise() {
        QuadraticProblem p = new QuadraticProblem(4, 1e-4, 1e-3);
        double[] x = p.start();
        double[] exact = new double[4];
        p.gradient(x, exact);
        double[] g = new double[4];
        SplittableRandom rng = new SplittableRandom(2);
        double sum = 0;
        double sumSq = 0;
        int n = 200_000;
        for (int k = 0; k < n; k++) {
            p.stochasticGradient(x, rng, g);
            double noise = g[2] - exact[2];
            assertEquals(noise, g[0] - exact[0], 1e-12, "one scalar xi for every coordinate");
            sum += noise;
            sumSq += noise * noise;
        }
        assertEquals(0, sum / n, 1e-5);
        assertEquals(1e-3, Math.sqrt(sumSq / n), 2e-5);
    }
}
