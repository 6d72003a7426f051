package io.ata.ml.djl;

import io.ata.ml.data.Dataset;
import io.ata.ml.net.NetworkSpec;

/**
 * A plain-Java forward pass of an mlp spec in double precision, written from the layout's
 * definition (weights {@code [out, in]} row-major, then biases), to check DJL against.
 */
final class ReferenceMlp {
    private final NetworkSpec spec;
    private final float[] parameters;

    ReferenceMlp(NetworkSpec spec, float[] parameters) {
        this.spec = spec;
        this.parameters = parameters;
    }

    double[] logits(float[] input) {
        double[] x = new double[input.length];
        for (int i = 0; i < input.length; i++) {
            x[i] = input[i];
        }
        int offset = 0;
        int layers = spec.hidden().size() + 1;
        for (int l = 0; l < layers; l++) {
            int out = l < spec.hidden().size() ? spec.hidden().get(l) : spec.classes();
            int in = x.length;
            double[] y = new double[out];
            for (int o = 0; o < out; o++) {
                double sum = 0;
                for (int i = 0; i < in; i++) {
                    sum += parameters[offset + o * in + i] * x[i];
                }
                y[o] = sum + parameters[offset + out * in + o];
                if (l < layers - 1) {
                    y[o] = Math.max(0, y[o]);
                }
            }
            offset += out * in + out;
            x = y;
        }
        return x;
    }

    /** Mean cross-entropy and fraction correct over {@code indices}. */
    double[] lossAndAccuracy(Dataset data, int[] indices) {
        double loss = 0;
        int correct = 0;
        float[] features = new float[data.featureCount()];
        for (int index : indices) {
            data.copyFeatures(index, features, 0);
            double[] z = logits(features);
            double max = Double.NEGATIVE_INFINITY;
            int argmax = 0;
            for (int k = 0; k < z.length; k++) {
                if (z[k] > max) {
                    max = z[k];
                    argmax = k;
                }
            }
            double sum = 0;
            for (double v : z) {
                sum += Math.exp(v - max);
            }
            loss += -(z[data.label(index)] - max - Math.log(sum));
            correct += argmax == data.label(index) ? 1 : 0;
        }
        return new double[] {loss / indices.length, (double) correct / indices.length};
    }
}
