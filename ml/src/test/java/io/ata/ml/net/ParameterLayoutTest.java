package io.ata.ml.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParameterLayoutTest {

    private static final ParameterLayout TINY = ParameterLayout.of(List.of(
            ParameterShape.of("01Linear_weight", 3, 2),
            ParameterShape.of("01Linear_bias", 3),
            ParameterShape.of("03Linear_weight", 2, 3),
            ParameterShape.of("03Linear_bias", 2)));

    /** {@code expected.requireSame(actual, what)} throws, with {@code message}. */
    private static void assertMismatch(String message, ParameterLayout expected, ParameterLayout actual, String what) {
        assertEquals(
                message,
                assertThrows(LayoutMismatchException.class, () -> expected.requireSame(actual, what))
                        .getMessage());
    }

    @Test
    void offsetsFollowTheOrder() {
        assertEquals(17, TINY.totalSize());
        assertEquals(0, TINY.offset(0));
        assertEquals(6, TINY.offset(1));
        assertEquals(9, TINY.offset(2));
        assertEquals(15, TINY.offset(3));
        assertEquals(NetworkSpec.parse("mlp:3,in=2,classes=2").layout(), TINY);
    }

    @Test
    void sameLayoutPasses() {
        TINY.requireSame(NetworkSpec.parse("mlp:3,in=2,classes=2").layout(), "the built network");
    }

    @Test
    void aShapeDifferenceIsNamed() {
        ParameterLayout other = NetworkSpec.parse("mlp:3,in=4,classes=2").layout();
        assertMismatch(
                "parameter #0 differs: expected 01Linear_weight[3, 2], the built network has 01Linear_weight[3, 4]",
                TINY,
                other,
                "the built network");
    }

    @Test
    void aNameDifferenceIsNamed() {
        ParameterLayout renamed = ParameterLayout.of(List.of(
                ParameterShape.of("01Linear_weight", 3, 2),
                ParameterShape.of("01Linear_bias", 3),
                ParameterShape.of("04Linear_weight", 2, 3),
                ParameterShape.of("04Linear_bias", 2)));
        assertMismatch(
                "parameter #2 differs: expected 03Linear_weight[2, 3], the published model has 04Linear_weight[2, 3]",
                TINY,
                renamed,
                "the published model");
    }

    @Test
    void missingAndExtraTensorsAreNamed() {
        ParameterLayout shorter = ParameterLayout.of(TINY.parameters().subList(0, 3));
        assertMismatch(
                "expected 4 parameter tensors, the built network has 3 (first missing: 03Linear_bias[2])",
                TINY,
                shorter,
                "the built network");
        assertMismatch(
                "expected 3 parameter tensors, the built network has 4 (first extra: 03Linear_bias[2])",
                shorter,
                TINY,
                "the built network");
    }

    @Test
    void shapesMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> ParameterShape.of("w", 3, 0));
    }
}
