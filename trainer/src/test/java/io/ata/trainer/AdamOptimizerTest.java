package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.schemas.TensorEncoding;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Adam's steps against values computed by hand from the textbook update. */
class AdamOptimizerTest {

    private static OptimizerMemory memory(Optimizer optimizer, int n, TensorEncoding precision) {
        return OptimizerMemory.fresh(optimizer, n, precision);
    }

    /**
     * Two steps with lr 0.01 and the default betas: the first moves by about lr whatever the
     * gradient's size (bias correction undoes the moments' start at zero), the second as worked
     * out below.
     */
    @Test
    void twoStepsWithBiasCorrection() {
        AdamOptimizer adam = new AdamOptimizer(0.01);
        double[] x = {1.0, 1.0};
        OptimizerMemory memory = memory(adam, 2, TensorEncoding.FLOAT64_LE);

        adam.step(FlatTensor.of(x), new double[] {0.5, 1e-6}, memory);
        // t = 1: m = 0.1 g, v = 0.001 g^2; m^ = g, v^ = g^2: x - lr * g / (|g| + eps)
        assertArrayEquals(new double[] {0.05, 1e-7}, memory.vector(0).toDoubles(), 1e-16);
        assertArrayEquals(new double[] {0.00025, 1e-15}, memory.vector(1).toDoubles(), 1e-18);
        assertArrayEquals(new double[] {1.0 - 0.01 * 0.5 / (0.5 + 1e-8), 1.0 - 0.01 * 1e-6 / (1e-6 + 1e-8)}, x, 1e-15);
        assertEquals(1, memory.step());

        double x1 = x[0];
        adam.step(FlatTensor.of(x), new double[] {-1.0, 0}, memory);
        double m = 0.9 * 0.05 + 0.1 * -1.0; // -0.055
        double v = 0.999 * 0.00025 + 0.001 * 1.0; // 0.00124975
        double mHat = m / (1 - 0.9 * 0.9); // / 0.19
        double vHat = v / (1 - 0.999 * 0.999); // / 0.001999
        assertEquals(m, memory.vector(0).get(0), 1e-15);
        assertEquals(v, memory.vector(1).get(0), 1e-15);
        assertEquals(x1 - 0.01 * mHat / (Math.sqrt(vHat) + 1e-8), x[0], 1e-12);
        assertEquals(2, memory.step());
    }

    /**
     * Weight decay is decoupled (AdamW): the parameters shrink by lr * wd whatever the moments. An
     * L2 term in the gradient would instead move x by about lr (Adam normalises it): 1.9, not 1.98.
     */
    @Test
    void weightDecayIsDecoupled() {
        AdamOptimizer adamW = new AdamOptimizer(0.1, 0.9, 0.999, 1e-8, 0.1);
        double[] x = {2.0};
        OptimizerMemory memory = memory(adamW, 1, TensorEncoding.FLOAT64_LE);
        adamW.step(FlatTensor.of(x), new double[] {0.0}, memory);
        assertEquals(2.0 * (1 - 0.1 * 0.1), x[0], 1e-15);
    }

    /**
     * A float32 model keeps float32 moments; each value is computed in double from the stored
     * floats and rounded to float when stored, in this order: m, v, then x from the stored m, v.
     */
    @Test
    void float32ValuesAreRoundedWhenStored() {
        AdamOptimizer adam = new AdamOptimizer(0.01);
        float[] x = {1.0f, -0.3f};
        double[] g = {0.1234567, -2.5};
        OptimizerMemory memory = memory(adam, 2, TensorEncoding.FLOAT32_LE);
        adam.step(FlatTensor.of(x), g, memory);
        for (int i = 0; i < 2; i++) {
            float m = (float) ((1 - 0.9) * g[i]);
            float v = (float) ((1 - 0.999) * g[i] * g[i]);
            double start = i == 0 ? 1.0f : -0.3f;
            float expected = (float)
                    (start * (1 - 0.01 * 0) - (0.01 / (1 - 0.9)) * m / (Math.sqrt(v) / Math.sqrt(1 - 0.999) + 1e-8));
            assertEquals(m, (float) memory.vector(0).get(i));
            assertEquals(v, (float) memory.vector(1).get(i));
            assertEquals(Float.floatToIntBits(expected), Float.floatToIntBits(x[i]), "parameter " + i);
        }
        assertEquals(TensorEncoding.FLOAT32_LE, memory.vector(0).precision());
    }

    @Test
    void describesItselfCanonically() {
        assertEquals("adam(lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,wd=0)", new AdamOptimizer(1e-3).describe());
        assertEquals(
                "adam(lr=0.0003,beta1=0.8,beta2=0.99,eps=1e-06,wd=0.01)",
                new AdamOptimizer(3e-4, 0.8, 0.99, 1e-6, 0.01).describe());
        assertEquals(List.of("m", "v"), new AdamOptimizer(1e-3).stateVectors());
    }

    @Test
    void rejectsBadHyperParametersAndLengths() {
        assertThrows(IllegalArgumentException.class, () -> new AdamOptimizer(0));
        assertThrows(IllegalArgumentException.class, () -> new AdamOptimizer(0.1, 1, 0.999, 1e-8, 0));
        assertThrows(IllegalArgumentException.class, () -> new AdamOptimizer(0.1, 0.9, 1.5, 1e-8, 0));
        assertThrows(IllegalArgumentException.class, () -> new AdamOptimizer(0.1, 0.9, 0.999, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new AdamOptimizer(0.1, 0.9, 0.999, 1e-8, -1));
        AdamOptimizer adam = new AdamOptimizer(0.1);
        assertThrows(
                IllegalArgumentException.class,
                () -> adam.step(
                        FlatTensor.of(new double[2]), new double[3], memory(adam, 2, TensorEncoding.FLOAT64_LE)));
        assertThrows(
                IllegalArgumentException.class,
                () -> adam.step(
                        FlatTensor.of(new double[2]), new double[2], memory(adam, 3, TensorEncoding.FLOAT64_LE)));
    }
}
