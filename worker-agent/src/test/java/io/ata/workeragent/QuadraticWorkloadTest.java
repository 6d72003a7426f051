package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.workloads.QuadraticProblem;
import io.ata.workloads.TaskSeed;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class QuadraticWorkloadTest {

    private final QuadraticProblem problem = QuadraticProblem.paper();
    private final QuadraticWorkload workload = new QuadraticWorkload(problem);

    /** A point away from the start, so the exact gradient has many non-zero entries. */
    private double[] point() {
        double[] x = new double[problem.dimension()];
        SplittableRandom rng = new SplittableRandom(7);
        for (int i = 0; i < x.length; i++) {
            x[i] = rng.nextDouble() * 2 - 1;
        }
        return x;
    }

    private static TaskOutput compute(QuadraticWorkload workload, ModelVersion model, String taskId, long seed) {
        return workload.compute(model, taskId, seed, () -> false).orElseThrow();
    }

    private static double[] gradient(TaskOutput output) {
        assertEquals(TensorEncoding.FLOAT64_LE, output.encoding());
        return TensorCodec.decode(ByteBuffer.wrap(output.gradient()), output.encoding());
    }

    @Test
    void gradientIsTheExactGradientPlusOneScalarNoise() {
        double[] x = point();
        double[] g = gradient(compute(workload, Fixtures.model("job", 3, x), "job/4/0", 0));

        double[] exact = new double[x.length];
        problem.gradient(x, exact);
        assertEquals(problem.dimension(), g.length);
        double shift = g[0] - exact[0];
        for (int i = 0; i < g.length; i++) {
            assertEquals(exact[i] + shift, g[i], 1e-12, "component " + i);
        }
        // the noise is sigma * xi with xi ~ N(0, 1) from the task's own stream
        double xi = new SplittableRandom(TaskSeed.of(0, "job/4/0")).nextGaussian();
        assertEquals(QuadraticProblem.DEFAULT_NOISE * xi, shift, 1e-12);
    }

    @Test
    void sameTaskIdGivesTheSameGradient() {
        ModelVersion model = Fixtures.model("job", 0, point());
        TaskOutput first = compute(workload, model, "job/1/5", 42);
        TaskOutput again = compute(new QuadraticWorkload(), model, "job/1/5", 42);
        assertArrayEquals(first.gradient(), again.gradient());
    }

    @Test
    void differentTaskIdsGiveDifferentNoise() {
        ModelVersion model = Fixtures.model("job", 0, point());
        byte[] a = compute(workload, model, "job/1/0", 0).gradient();
        byte[] b = compute(workload, model, "job/1/1", 0).gradient();
        byte[] c = compute(workload, model, "job/2/0", 0).gradient();
        assertFalse(java.util.Arrays.equals(a, b));
        assertFalse(java.util.Arrays.equals(a, c));
        assertFalse(java.util.Arrays.equals(b, c));
    }

    @Test
    void theBaseSeedChangesTheNoise() {
        ModelVersion model = Fixtures.model("job", 0, point());
        assertFalse(java.util.Arrays.equals(
                compute(workload, model, "job/1/0", 0).gradient(),
                compute(workload, model, "job/1/0", 1).gradient()));
    }

    @Test
    void reportsTheObjectiveAndOneSample() {
        double[] x = point();
        TaskOutput output = compute(workload, Fixtures.model("job", 0, x), "job/1/0", 0);
        assertEquals(problem.value(x), output.loss(), 0);
        assertEquals(1, output.samples());
    }

    @Test
    void readsFloat32Parameters() {
        double[] x = point();
        ModelVersion model = ModelVersion.newBuilder(Fixtures.model("job", 0, x))
                .setParameters(ByteBuffer.wrap(TensorCodec.encode(x, TensorEncoding.FLOAT32_LE)))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .build();
        double[] g = gradient(compute(workload, model, "job/1/0", 0));
        double[] rounded = TensorCodec.decode(
                ByteBuffer.wrap(TensorCodec.encode(x, TensorEncoding.FLOAT32_LE)), TensorEncoding.FLOAT32_LE);
        double[] expected = new double[x.length];
        problem.stochasticGradient(rounded, new SplittableRandom(TaskSeed.of(0, "job/1/0")), expected);
        assertArrayEquals(expected, g, 0);
    }

    @Test
    void refusesAModelOfAnotherDimension() {
        ModelVersion model = Fixtures.model("job", 0, new double[10]);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> compute(workload, model, "job/1/0", 0));
        assertNotEquals(-1, e.getMessage().indexOf("dimension 100"));
    }
}
