package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.ml.data.Dataset;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.net.NetworkSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EvaluatorTest {

    @BeforeAll
    static void start() {
        DjlRuntime.start(1);
    }

    /** DJL's forward pass against a plain-Java one: input layout, parameter order, loss. */
    @Test
    void matchesAPlainJavaForwardPass() {
        NetworkSpec spec = NetworkSpec.parse("mlp:32,16");
        Dataset test = SyntheticDataset.split(0).test();
        int[] samples = DjlTestSupport.range(0, 300);
        float[] parameters = spec.initialParameters(11);
        double[] expected = new ReferenceMlp(spec, parameters).lossAndAccuracy(test, samples);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(parameters);
            Evaluation evaluation = new Evaluator(network, 64).evaluate(test, samples);
            assertEquals(expected[0], evaluation.loss(), 1e-5);
            assertEquals(expected[1], evaluation.accuracy());
            assertEquals(300, evaluation.samples());
            // the gradient computer's loss is the same mean cross-entropy
            GradientResult gradient = new GradientComputer(network, 16).compute(test, samples, () -> false);
            assertEquals(expected[0], gradient.loss(), 1e-5);
        }
    }

    @Test
    void theBatchSizeDoesNotChangeTheResult() {
        NetworkSpec spec = NetworkSpec.cnn();
        Dataset test = SyntheticDataset.split(0).test();
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            network.setParameters(spec.initialParameters(2));
            int[] samples = DjlTestSupport.range(0, 200);
            Evaluation small = new Evaluator(network, 7).evaluate(test, samples);
            Evaluation large = new Evaluator(network, 200).evaluate(test, samples);
            assertEquals(large.accuracy(), small.accuracy());
            assertEquals(large.loss(), small.loss(), 1e-6);
            // an untrained network: about chance
            assertTrue(large.accuracy() < 0.3, "accuracy " + large.accuracy());
        }
    }
}
