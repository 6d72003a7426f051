package io.ata.ml.data;

import java.util.List;

/**
 * A data set held in memory, features either as 8-bit pixels ({@link #ofPixels}: one byte per
 * value, read as {@code unsigned / 255f}, so in [0, 1]; Fashion-MNIST's 60,000 training images take
 * 47 MB instead of 188 MB as floats) or as floats ({@link #ofFloats}: read as they are).
 */
public final class InMemoryDataset implements Dataset {
    private final String name;
    private final List<Integer> featureShape;
    private final int featureCount;
    private final int classes;
    private final byte[] pixels; // null when floats are used
    private final float[] floats; // null when pixels are used
    private final int[] labels;

    private InMemoryDataset(
            String name, List<Integer> featureShape, int classes, byte[] pixels, float[] floats, int[] labels) {
        this.name = name;
        this.featureShape = List.copyOf(featureShape);
        this.classes = classes;
        this.pixels = pixels;
        this.floats = floats;
        this.labels = labels;
        long count = 1;
        for (int d : this.featureShape) {
            if (d < 1) {
                throw new IllegalArgumentException(name + ": feature shape " + featureShape + " is not positive");
            }
            count *= d;
        }
        this.featureCount = Math.toIntExact(count);
        long values = (long) labels.length * featureCount;
        int stored = pixels != null ? pixels.length : floats.length;
        if (values != stored) {
            throw new IllegalArgumentException(name + ": " + labels.length + " samples of " + featureCount
                    + " features need " + values + " values, got " + stored);
        }
        if (classes < 1) {
            throw new IllegalArgumentException(name + ": " + classes + " classes");
        }
        for (int i = 0; i < labels.length; i++) {
            if (labels[i] < 0 || labels[i] >= classes) {
                throw new IllegalArgumentException(
                        name + ": sample " + i + " has label " + labels[i] + ", outside [0, " + classes + ")");
            }
        }
    }

    /** Samples of 8-bit pixels ({@code labels.length * featureCount} bytes, sample after sample). */
    public static InMemoryDataset ofPixels(
            String name, List<Integer> featureShape, int classes, byte[] pixels, int[] labels) {
        return new InMemoryDataset(name, featureShape, classes, pixels, null, labels);
    }

    /** Samples of float features ({@code labels.length * featureCount} floats, sample after sample). */
    public static InMemoryDataset ofFloats(
            String name, List<Integer> featureShape, int classes, float[] features, int[] labels) {
        return new InMemoryDataset(name, featureShape, classes, null, features, labels);
    }

    /** The same samples with more classes (e.g. when the test split lacks the last class). */
    public InMemoryDataset withClasses(int moreClasses) {
        if (moreClasses == classes) {
            return this;
        }
        return new InMemoryDataset(name, featureShape, moreClasses, pixels, floats, labels);
    }

    /** A copy holding the samples {@code indices}, in that order, named {@code newName}. */
    public InMemoryDataset subset(String newName, int[] indices) {
        int[] newLabels = new int[indices.length];
        byte[] newPixels = pixels == null ? null : new byte[Math.multiplyExact(indices.length, featureCount)];
        float[] newFloats = floats == null ? null : new float[Math.multiplyExact(indices.length, featureCount)];
        for (int i = 0; i < indices.length; i++) {
            int from = checkIndex(indices[i]);
            newLabels[i] = labels[from];
            if (pixels != null) {
                System.arraycopy(pixels, from * featureCount, newPixels, i * featureCount, featureCount);
            } else {
                System.arraycopy(floats, from * featureCount, newFloats, i * featureCount, featureCount);
            }
        }
        return new InMemoryDataset(newName, featureShape, classes, newPixels, newFloats, newLabels);
    }

    /** One more than the largest label of {@code labels} (at least 1). */
    static int classesOf(int[] labels) {
        int max = 0;
        for (int label : labels) {
            max = Math.max(max, label);
        }
        return max + 1;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int size() {
        return labels.length;
    }

    @Override
    public List<Integer> featureShape() {
        return featureShape;
    }

    @Override
    public int featureCount() {
        return featureCount;
    }

    @Override
    public int classes() {
        return classes;
    }

    @Override
    public void copyFeatures(int index, float[] target, int offset) {
        int start = Math.multiplyExact(checkIndex(index), featureCount);
        if (pixels != null) {
            for (int j = 0; j < featureCount; j++) {
                target[offset + j] = (pixels[start + j] & 0xff) / 255f;
            }
        } else {
            System.arraycopy(floats, start, target, offset, featureCount);
        }
    }

    @Override
    public int label(int index) {
        return labels[checkIndex(index)];
    }

    private int checkIndex(int index) {
        if (index < 0 || index >= labels.length) {
            throw new IndexOutOfBoundsException(name + ": sample " + index + " of " + labels.length);
        }
        return index;
    }

    @Override
    public String toString() {
        return name + " (" + labels.length + " samples of " + featureShape + ", " + classes + " classes)";
    }
}
