package io.ata.ml.data;

import java.util.List;

/**
 * A labelled classification data set: {@link #size()} samples, each a float feature vector of
 * {@link #featureShape()} (row-major) and a class label in {@code [0, classes())}. Features are
 * read one sample at a time into a caller's buffer, so an implementation may keep them compactly
 * (e.g. pixels as bytes) or compute them on demand. Implementations are immutable and safe to read
 * from several threads.
 */
public interface Dataset {

    /** A short name for messages, e.g. {@code fashion-mnist/train}. */
    String name();

    /** Number of samples. */
    int size();

    /** Shape of one sample's features, e.g. {@code [1, 28, 28]} or {@code [20]}. */
    List<Integer> featureShape();

    /** Number of classes; every label is in {@code [0, classes())}. */
    int classes();

    /** Writes the {@link #featureCount()} features of sample {@code index} to {@code target[offset...]}. */
    void copyFeatures(int index, float[] target, int offset);

    /** The class of sample {@code index}. */
    int label(int index);

    /** Number of features of one sample (the product of {@link #featureShape()}). */
    default int featureCount() {
        int count = 1;
        for (int d : featureShape()) {
            count = Math.multiplyExact(count, d);
        }
        return count;
    }
}
