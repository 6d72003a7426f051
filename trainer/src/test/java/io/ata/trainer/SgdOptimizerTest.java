package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TensorEncoding;
import io.ata.workloads.QuadraticProblem;
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

    /** Momentum 0.9, hand-computed: v1 = g1, v2 = 0.9 v1 + g2; the velocity is the state. */
    @Test
    void momentumAccumulatesTheGradients() {
        SgdOptimizer sgd = new SgdOptimizer(0.1, 0.9, 0);
        assertEquals(java.util.List.of("velocity"), sgd.stateVectors());
        double[] x = {1.0, -1.0};
        OptimizerMemory memory = OptimizerMemory.fresh(sgd, 2, TensorEncoding.FLOAT64_LE);
        sgd.step(FlatTensor.of(x), new double[] {2.0, 0.0}, memory);
        assertArrayEquals(new double[] {1.0 - 0.1 * 2.0, -1.0}, x, 1e-15);
        assertArrayEquals(new double[] {2.0, 0.0}, memory.vector(0).toDoubles(), 0);
        sgd.step(FlatTensor.of(x), new double[] {1.0, 4.0}, memory);
        // v = (0.9 * 2 + 1, 0.9 * 0 + 4) = (2.8, 4)
        assertArrayEquals(new double[] {0.8 - 0.1 * 2.8, -1.0 - 0.1 * 4.0}, x, 1e-15);
        assertArrayEquals(new double[] {2.8, 4.0}, memory.vector(0).toDoubles(), 1e-15);
        assertEquals(2, memory.step());
    }

    /** Weight decay is an L2 term added to the gradient: g' = g + wd x, before the momentum. */
    @Test
    void weightDecayIsAddedToTheGradient() {
        double[] x = {2.0};
        SgdOptimizer plain = new SgdOptimizer(0.1, 0, 0.5);
        step(plain, x, new double[] {1.0});
        assertArrayEquals(new double[] {2.0 - 0.1 * (1.0 + 0.5 * 2.0)}, x, 1e-15);

        SgdOptimizer withMomentum = new SgdOptimizer(0.1, 0.9, 0.5);
        double[] y = {2.0};
        OptimizerMemory memory = OptimizerMemory.fresh(withMomentum, 1, TensorEncoding.FLOAT64_LE);
        withMomentum.step(FlatTensor.of(y), new double[] {1.0}, memory); // g' = 2, v = 2, y = 1.8
        withMomentum.step(FlatTensor.of(y), new double[] {1.0}, memory); // g' = 1.9, v = 3.7, y = 1.43
        assertArrayEquals(new double[] {1.43}, y, 1e-15);
        assertArrayEquals(new double[] {3.7}, memory.vector(0).toDoubles(), 1e-15);
    }

    @Test
    void withoutMomentumThereIsNoState() {
        assertTrue(new SgdOptimizer(0.1).stateVectors().isEmpty());
        assertTrue(new SgdOptimizer(0.1, 0, 0.01).stateVectors().isEmpty());
        assertEquals(false, new SgdOptimizer(0.1).hasState());
    }

    @Test
    void describesItselfCanonically() {
        assertEquals("sgd(lr=0.0001,momentum=0,wd=0)", new SgdOptimizer(1e-4).describe());
        assertEquals("sgd(lr=0.01,momentum=0.9,wd=5e-05)", new SgdOptimizer(0.01, 0.9, 5e-5).describe());
        assertEquals(new SgdOptimizer(0.001).describe(), new SgdOptimizer(1.0 / 1000).describe());
    }

    @Test
    void rejectsBadStepsAndLengths() {
        assertThrows(IllegalArgumentException.class, () -> new SgdOptimizer(0.1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new SgdOptimizer(0.1, -0.1, 0));
        assertThrows(IllegalArgumentException.class, () -> new SgdOptimizer(0.1, 0, -1));
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
