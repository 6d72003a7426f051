package io.ata.ml.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SyntheticDatasetTest {

    private static float[] features(Dataset data, int index) {
        float[] f = new float[data.featureCount()];
        data.copyFeatures(index, f, 0);
        return f;
    }

    @Test
    void standardSplitHasTheSizesOfFashionMnist() {
        DataSplit split = SyntheticDataset.split(0);
        assertEquals(60_000, split.train().size());
        assertEquals(10_000, split.test().size());
        assertEquals(List.of(1, 28, 28), split.train().featureShape());
        assertEquals(10, split.test().classes());
        assertEquals("synthetic/train", split.train().name());
        assertEquals("synthetic:7/test", SyntheticDataset.split(7).test().name());
    }

    @Test
    void samplesAreReproducibleAndDependOnTheSeed() {
        Dataset a = SyntheticDataset.split(3).train();
        Dataset b = SyntheticDataset.split(3).train();
        Dataset c = SyntheticDataset.split(4).train();
        assertArrayEquals(features(a, 123), features(b, 123));
        assertEquals(a.label(123), b.label(123));
        assertFalse(Arrays.equals(features(a, 123), features(c, 123)));
        assertFalse(
                Arrays.equals(features(a, 0), features(SyntheticDataset.split(3).test(), 0)));
    }

    @Test
    void pixelsAreInZeroOneAndLabelsCoverAllClasses() {
        Dataset data = SyntheticDataset.split(0).train();
        int[] counts = new int[10];
        for (int i = 0; i < 2000; i++) {
            for (float v : features(data, i)) {
                assertTrue(v >= 0 && v <= 1, "pixel " + v);
            }
            counts[data.label(i)]++;
        }
        for (int count : counts) {
            assertTrue(count > 140 && count < 260, Arrays.toString(counts));
        }
    }

    /**
     * The class shows in the pixels (nearest class mean classifies far above chance) but not
     * perfectly: noise, shifts, mixing and 5% wrong labels keep it a real task.
     */
    @Test
    void classesAreSeparableButNotTrivially() {
        Dataset data = SyntheticDataset.split(1).train();
        int n = 3000;
        double[][] means = new double[10][784];
        int[] counts = new int[10];
        for (int i = 0; i < n; i++) {
            float[] f = features(data, i);
            int y = data.label(i);
            counts[y]++;
            for (int p = 0; p < 784; p++) {
                means[y][p] += f[p];
            }
        }
        for (int k = 0; k < 10; k++) {
            for (int p = 0; p < 784; p++) {
                means[k][p] /= counts[k];
            }
        }
        Dataset test = SyntheticDataset.split(1).test();
        int correct = 0;
        for (int i = 0; i < 1000; i++) {
            float[] f = features(test, i);
            int best = -1;
            double bestDistance = Double.MAX_VALUE;
            for (int k = 0; k < 10; k++) {
                double d = 0;
                for (int p = 0; p < 784; p++) {
                    d += (f[p] - means[k][p]) * (f[p] - means[k][p]);
                }
                if (d < bestDistance) {
                    bestDistance = d;
                    best = k;
                }
            }
            correct += best == test.label(i) ? 1 : 0;
        }
        assertTrue(correct > 500 && correct < 960, "nearest-mean accuracy " + correct / 1000.0);
    }
}
