package io.ata.ml.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ParameterInitTest {

    /** Values printed by ml/src/test/python/reference_rules.py, written from the class javadoc. */
    @Test
    void matchesTheIndependentReference() {
        float[] tiny = NetworkSpec.parse("mlp:3,in=2,classes=2").initialParameters(3);
        assertArrayEquals(
                new float[] {
                    -0.546663761138916f, 0.2832578122615814f, 0.15977032482624054f, -0.6040576696395874f,
                    -0.40101566910743713f, 0.19264744222164154f, -0.5159816741943359f, 0.5497308969497681f,
                    -0.012639597058296204f, 0.4486351013183594f, 0.22913432121276855f, 0.24466517567634583f,
                    -0.022904057055711746f, -0.18937020003795624f, 0.25101354718208313f, 0.34512874484062195f,
                    -0.2239493429660797f
                },
                tiny);
        float[] mlp = NetworkSpec.mlp().initialParameters(1);
        assertArrayEquals(
                new float[] {0.004754398018121719f, 0.0175558403134346f, 0.033643051981925964f, -0.0039743417873978615f
                },
                Arrays.copyOf(mlp, 4));
    }

    @Test
    void eachTensorStaysWithinItsFanInBound() {
        NetworkSpec cnn = NetworkSpec.cnn();
        float[] values = cnn.initialParameters(5);
        assertEquals(cnn.parameterCount(), values.length);
        ParameterLayout layout = cnn.layout();
        long[] fanIns = {9, 9, 16 * 9, 16 * 9, 32 * 9, 32 * 9, 1568, 1568};
        for (int t = 0; t < fanIns.length; t++) {
            double bound = 1 / Math.sqrt(fanIns[t]);
            double maxAbs = 0;
            int end = t + 1 < fanIns.length ? layout.offset(t + 1) : values.length;
            for (int i = layout.offset(t); i < end; i++) {
                maxAbs = Math.max(maxAbs, Math.abs(values[i]));
            }
            assertTrue(maxAbs <= bound, layout.parameters().get(t) + ": " + maxAbs + " > " + bound);
            assertTrue(maxAbs > 0.8 * bound, layout.parameters().get(t) + " uses too little of its range: " + maxAbs);
        }
    }

    @Test
    void sameSeedSameValuesOtherSeedOtherValues() {
        assertArrayEquals(
                NetworkSpec.mlp().initialParameters(9), NetworkSpec.mlp().initialParameters(9));
        assertFalse(Arrays.equals(
                NetworkSpec.mlp().initialParameters(9), NetworkSpec.mlp().initialParameters(10)));
    }
}
