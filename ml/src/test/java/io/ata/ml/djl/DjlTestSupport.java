package io.ata.ml.djl;

import io.ata.ml.data.Dataset;
import io.ata.ml.data.InMemoryDataset;
import java.util.List;
import java.util.SplittableRandom;

/** Small data sets for the DJL tests. */
final class DjlTestSupport {

    private DjlTestSupport() {}

    /** {@code n} samples of {@code shape}, features uniform in [0, 1), labels uniform. */
    static Dataset randomData(int n, List<Integer> shape, int classes, long seed) {
        int count = shape.stream().reduce(1, (a, b) -> a * b);
        SplittableRandom random = new SplittableRandom(seed);
        float[] features = new float[n * count];
        for (int i = 0; i < features.length; i++) {
            features[i] = (float) random.nextDouble();
        }
        int[] labels = new int[n];
        for (int i = 0; i < n; i++) {
            labels[i] = random.nextInt(classes);
        }
        return InMemoryDataset.ofFloats("random", shape, classes, features, labels);
    }

    static int[] range(int from, int to) {
        return java.util.stream.IntStream.range(from, to).toArray();
    }

    /** ||a - b|| / ||b|| in double. */
    static double relativeDifference(float[] a, float[] b) {
        double diff = 0;
        double norm = 0;
        for (int i = 0; i < a.length; i++) {
            diff += ((double) a[i] - b[i]) * ((double) a[i] - b[i]);
            norm += (double) b[i] * b[i];
        }
        return Math.sqrt(diff / norm);
    }
}
