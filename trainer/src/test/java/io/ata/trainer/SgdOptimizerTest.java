package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TensorEncoding;
import io.ata.workload.QuadraticProblem;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SgdOptimizerTest {

    /** One step on {@code x} in place (float64, a fresh memory: SGD without momentum keeps none). */
    private static void step(SgdOptimizer sgd, double[] x, double[] g) {
        sgd.step(FlatTensor.of(x), g, OptimizerMemory.fresh(sgd, x.length, TensorEncoding.FLOAT64_LE));
    }

    @Test
    void stepIsXMinusStepTimesGradient() {
        SgdOptimizer sgd = new SgdOptimizer(0.5);
        double[] x = {1, -2, 3};
        double[] g = {2, 2, -4};
        step(sgd, x, g);
        assertArrayEquals(new double[] {1 - 0.5 * 2, -2 - 0.5 * 2, 3 + 0.5 * 4}, x, 0);
    }

    @Test
    void equalsTheFormulaOnTheQuadratic() {
        QuadraticProblem problem = QuadraticProblem.paper();
        double[] x = problem.start();
        double[] g = new double[problem.dimension()];
        problem.gradient(x, g);
        double[] expected = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            expected[i] = x[i] - QuadraticProblem.DEFAULT_STEP * g[i];
        }
        step(new SgdOptimizer(QuadraticProblem.DEFAULT_STEP), x, g);
        assertArrayEquals(expected, x, 0);
    }

    @Test
    void stepsDecreaseTheQuadraticsSuboptimality() {
        QuadraticObjective objective = QuadraticObjective.paper();
        QuadraticProblem problem = objective.problem();
        SgdOptimizer sgd = new SgdOptimizer(QuadraticProblem.DEFAULT_STEP);
        double[] x = objective.initialParameters();
        double before = objective.evaluate(x);
        assertTrue(before > 0);

        // one exact step decreases it
        double[] g = new double[x.length];
        problem.gradient(x, g);
        step(sgd, x, g);
        double afterOne = objective.evaluate(x);
        assertTrue(afterOne < before, afterOne + " < " + before);

        // and minibatch steps on stochastic gradients, as the workers send them, keep decreasing it
        SplittableRandom rng = new SplittableRandom(7);
        int batch = 8;
        double[] one = new double[x.length];
        for (int round = 0; round < 200; round++) {
            double[] mean = new double[x.length];
            for (int b = 0; b < batch; b++) {
                problem.stochasticGradient(x, rng, one);
                for (int i = 0; i < x.length; i++) {
                    mean[i] += one[i] / batch;
                }
            }
            step(sgd, x, mean);
        }
        assertTrue(objective.evaluate(x) < afterOne);
    }

    @Test
    void rejectsBadStepsAndLengths() {
        assertThrows(IllegalArgumentException.class, () -> new SgdOptimizer(0));
        assertThrows(IllegalArgumentException.class, () -> new SgdOptimizer(-1));
        assertThrows(IllegalArgumentException.class, () -> new SgdOptimizer(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> step(new SgdOptimizer(1), new double[2], new double[3]));
    }

    @Test
    void quadraticObjectiveStartsAtX0() {
        QuadraticObjective objective = QuadraticObjective.paper();
        assertEquals(QuadraticProblem.DEFAULT_DIMENSION, objective.dimension());
        double[] x0 = objective.initialParameters();
        assertEquals(Math.sqrt(QuadraticProblem.DEFAULT_DIMENSION), x0[0]);
        x0[0] = 0;
        assertEquals(
                Math.sqrt(QuadraticProblem.DEFAULT_DIMENSION),
                objective.initialParameters()[0],
                "a fresh array each time");
    }
}
