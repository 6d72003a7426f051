package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.ml.data.DataSplit;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.data.TaskSamples;
import io.ata.ml.net.NetworkSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pieces together, as the trainer and agents will use them: version 0 from the spec's
 * initial parameters, each step's samples from the task rule, gradients from the computer, an
 * Adam step written out here, and the evaluator on the test set.
 */
class TrainingTest {

    @BeforeAll
    static void start() {
        DjlRuntime.start(1);
    }

    @Test
    void adamOnTheSyntheticSetLearnsTheMlp() {
        NetworkSpec spec = NetworkSpec.mlp();
        DataSplit data = SyntheticDataset.split(0);
        int[] testSamples = DjlTestSupport.range(0, 2000);
        float[] parameters = spec.initialParameters(0);
        Adam adam = new Adam(parameters.length, 1e-3);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            GradientComputer computer = new GradientComputer(network, 64);
            Evaluator evaluator = new Evaluator(network, 500);
            network.setParameters(parameters);
            double before = evaluator.evaluate(data.test(), testSamples).accuracy();
            double accuracy = before;
            for (int step = 1; step <= 300 && accuracy <= 0.85; step++) {
                int[] samples =
                        TaskSamples.of(0, "training-test", step, 0, data.train().size(), 256);
                adam.step(
                        parameters,
                        computer.compute(data.train(), samples, () -> false).gradient());
                network.setParameters(parameters);
                if (step % 25 == 0) {
                    accuracy = evaluator.evaluate(data.test(), testSamples).accuracy();
                }
            }
            assertTrue(before < 0.2, "untrained accuracy " + before);
            assertTrue(accuracy > 0.8, "test accuracy " + accuracy);
        }
    }

    /** Adam (Kingma and Ba), the textbook update. */
    private static final class Adam {
        private final double rate;
        private final double[] m;
        private final double[] v;
        private int t;

        Adam(int size, double rate) {
            this.rate = rate;
            this.m = new double[size];
            this.v = new double[size];
        }

        void step(float[] parameters, float[] gradient) {
            t++;
            double correction1 = 1 - Math.pow(0.9, t);
            double correction2 = 1 - Math.pow(0.999, t);
            for (int i = 0; i < parameters.length; i++) {
                m[i] = 0.9 * m[i] + 0.1 * gradient[i];
                v[i] = 0.999 * v[i] + 0.001 * gradient[i] * gradient[i];
                parameters[i] -= (float) (rate * (m[i] / correction1) / (Math.sqrt(v[i] / correction2) + 1e-8));
            }
        }
    }
}
