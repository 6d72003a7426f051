package io.ata.ml.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.ml.data.Dataset;
import io.ata.ml.net.NetworkSpec;
import io.ata.ml.net.ParameterLayout;
import io.ata.ml.net.TanhKind;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A network kind that only a provider registers ({@link TanhKind}, through the tests' {@code
 * META-INF/services}), end to end: the text form, the layout, its own initial values, the DJL
 * build and the gradient, with nothing in {@code ml}'s main code knowing it.
 */
class ProvidedNetworkKindTest {

    @BeforeAll
    static void start() {
        DjlRuntime.start(1);
    }

    @Test
    void parsesAndLaysOutThroughTheStandardRegistry() {
        NetworkSpec spec = NetworkSpec.parse("test-tanh:5", List.of(2, 3), 3);
        assertSame(TanhKind.INSTANCE, spec.kind());
        assertEquals("test-tanh:5,in=6,classes=3", spec.toString());
        assertEquals(spec, NetworkSpec.parse(spec.toString()));
        assertEquals(
                "01Linear_weight[5, 6],01Linear_bias[5],03Linear_weight[3, 5],03Linear_bias[3]",
                spec.layout().parameters().stream().map(Object::toString).collect(Collectors.joining(",")));
        assertEquals(5 * 6 + 5 + 3 * 5 + 3, spec.parameterCount());
        assertEquals(List.of(8), NetworkSpec.parse("test-tanh", List.of(6), 3).hidden(), "its preset");

        // its own initial values: Glorot weights, zero biases
        float[] initial = spec.initialParameters(4);
        ParameterLayout layout = spec.layout();
        double bound = Math.sqrt(6.0 / (5 + 6));
        double maxAbs = 0;
        for (int i = 0; i < layout.offset(1); i++) {
            maxAbs = Math.max(maxAbs, Math.abs(initial[i]));
        }
        assertTrue(maxAbs <= bound && maxAbs > 0.8 * bound, "first weight's largest value " + maxAbs);
        for (int i = layout.offset(1); i < layout.offset(2); i++) {
            assertEquals(0f, initial[i], "bias " + i);
        }
    }

    /**
     * The built network computes tanh (its loss equals a plain-Java forward pass) and its
     * gradient matches central differences of the loss in every coordinate (tanh is smooth: no
     * kinks to skip).
     */
    @Test
    void buildsAndComputesItsGradientInDjl() {
        NetworkSpec spec = NetworkSpec.parse("test-tanh:5,in=6,classes=3");
        Dataset data = DjlTestSupport.randomData(12, List.of(6), 3, 5);
        int[] samples = DjlTestSupport.range(0, 12);
        float[] parameters = spec.initialParameters(2);
        try (DjlNetwork network = DjlNetwork.build(spec, Device.cpu())) {
            assertEquals(spec.layout(), network.layout());
            network.setParameters(parameters);
            Evaluator evaluator = new Evaluator(network, 12);
            double loss = evaluator.evaluate(data, samples).loss();
            assertEquals(referenceLoss(spec, parameters, data, samples), loss, 1e-5);

            GradientResult result = new GradientComputer(network, 5).compute(data, samples, () -> false);
            assertEquals(loss, result.loss(), 1e-6);
            for (int i = 0; i < parameters.length; i++) {
                float[] plus = parameters.clone();
                plus[i] += 1e-3f;
                float[] minus = parameters.clone();
                minus[i] -= 1e-3f;
                network.setParameters(plus);
                double up = evaluator.evaluate(data, samples).loss();
                network.setParameters(minus);
                double down = evaluator.evaluate(data, samples).loss();
                double numeric = (up - down) / ((double) plus[i] - minus[i]);
                assertEquals(numeric, result.gradient()[i], 1.5e-4 + 0.02 * Math.abs(numeric), "coordinate " + i);
            }
        }
    }

    /** Mean cross-entropy of one tanh hidden layer, in double, from the layout's definition. */
    private static double referenceLoss(NetworkSpec spec, float[] p, Dataset data, int[] samples) {
        int in = spec.inputSize();
        int hidden = spec.hidden().get(0);
        int classes = spec.classes();
        int w2 = hidden * in + hidden;
        int b2 = w2 + classes * hidden;
        float[] x = new float[in];
        double sum = 0;
        for (int s : samples) {
            data.copyFeatures(s, x, 0);
            double[] h = new double[hidden];
            for (int o = 0; o < hidden; o++) {
                double z = p[hidden * in + o];
                for (int i = 0; i < in; i++) {
                    z += (double) p[o * in + i] * x[i];
                }
                h[o] = Math.tanh(z);
            }
            double[] logits = new double[classes];
            double max = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < classes; k++) {
                double z = p[b2 + k];
                for (int o = 0; o < hidden; o++) {
                    z += p[w2 + k * hidden + o] * h[o];
                }
                logits[k] = z;
                max = Math.max(max, z);
            }
            double norm = 0;
            for (double z : logits) {
                norm += Math.exp(z - max);
            }
            sum += -(logits[data.label(s)] - max - Math.log(norm));
        }
        return sum / samples.length;
    }
}
