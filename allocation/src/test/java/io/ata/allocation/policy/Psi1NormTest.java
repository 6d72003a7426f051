package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Psi1NormTest {
    @Test
    void matchesTheClosedFormForExponentialAndConstant() {
        // For Y ~ Exp(1): E exp(Y/C) = 1/(1 - 1/C) = 2 at C = 2.
        SplittableRandom rng = new SplittableRandom(1);
        double[] y = new double[400_000];
        for (int i = 0; i < y.length; i++) {
            y[i] = -Math.log(1 - rng.nextDouble());
        }
        assertEquals(2.0, Psi1Norm.of(y, y.length), 0.05);
        // |Y| = 3 always: exp(3/C) = 2 at C = 3 / ln 2
        double[] c = {3, -3, 3, -3};
        assertEquals(3 / Math.log(2), Psi1Norm.of(c, 4), 1e-6);
        assertEquals(0, Psi1Norm.of(new double[] {0, 0}, 2));
    }
}
