package io.ata.ml.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import io.ata.ml.data.Dataset;

/**
 * Some samples of a data set copied out for one forward pass: their features, row after row, and
 * their labels. What the {@link Evaluator} and the {@link GradientComputer} feed a network.
 */
record SampleBatch(float[] features, long[] labels) {

    /** The {@code n} samples {@code indices[from]} to {@code indices[from + n - 1]} of {@code data}. */
    static SampleBatch copy(Dataset data, int[] indices, int from, int n) {
        int featureCount = data.featureCount();
        float[] features = new float[n * featureCount];
        long[] labels = new long[n];
        for (int k = 0; k < n; k++) {
            int index = indices[from + k];
            data.copyFeatures(index, features, k * featureCount);
            labels[k] = data.label(index);
        }
        return new SampleBatch(features, labels);
    }

    /**
     * {@code size}, the most samples of one batch, if it is at least 1.
     *
     * @throws IllegalArgumentException {@code "<what> must be at least 1, got <size>"} otherwise
     */
    static int requireSize(int size, String what) {
        if (size < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, got " + size);
        }
        return size;
    }

    int size() {
        return labels.length;
    }

    /** The features as {@code network}'s input, in {@code manager}. */
    NDArray input(NDManager manager, DjlNetwork network) {
        return manager.create(features, network.batchShape(size()));
    }

    /** The labels as an array of shape {@code (n)}, in {@code manager}. */
    NDArray label(NDManager manager) {
        return manager.create(labels, new Shape(size()));
    }
}
