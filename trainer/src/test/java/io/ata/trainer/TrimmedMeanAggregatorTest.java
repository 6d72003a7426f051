package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class TrimmedMeanAggregatorTest {

    @Test
    void cutsTheExtremesOfEachCoordinateSeparately() {
        Aggregator.Aggregate a = new TrimmedMeanAggregator(0.2).open(2);
        // 5 values per coordinate, floor(0.2 x 5) = 1 cut from each end
        a.add(new double[] {1, 100});
        a.add(new double[] {2, 3});
        a.add(new double[] {3, 2});
        a.add(new double[] {4, 1});
        a.add(new double[] {-50, 4});
        assertArrayEquals(new double[] {2, 3}, a.result(), 1e-12);
    }

    @Test
    void withNoTrimItIsTheMean() {
        Aggregator.Aggregate trimmed = new TrimmedMeanAggregator(0).open(1);
        Aggregator.Aggregate mean = MeanAggregator.INSTANCE.open(1);
        for (double v : new double[] {1, 5, 9, -2}) {
            trimmed.add(new double[] {v});
            mean.add(new double[] {v});
        }
        assertArrayEquals(mean.result(), trimmed.result(), 1e-12);
    }

    @Test
    void alwaysKeepsAtLeastOneValue() {
        TrimmedMeanAggregator rule = new TrimmedMeanAggregator(0.49);
        assertEquals(0, rule.cut(1));
        assertEquals(0, rule.cut(2));
        assertEquals(1, rule.cut(3));
        assertEquals(1, rule.cut(4));
        Aggregator.Aggregate a = rule.open(1);
        a.add(new double[] {1});
        a.add(new double[] {3});
        assertArrayEquals(new double[] {2}, a.result(), 1e-12);
    }

    @Test
    void theResultDoesNotDependOnTheArrivalOrder() {
        Aggregator.Aggregate one = new TrimmedMeanAggregator(0.25).open(1);
        Aggregator.Aggregate two = new TrimmedMeanAggregator(0.25).open(1);
        double[] values = {0.1, 0.7, 0.3, 1e6};
        for (int i = 0; i < values.length; i++) {
            one.add(new double[] {values[i]});
            two.add(new double[] {values[values.length - 1 - i]});
        }
        assertArrayEquals(one.result(), two.result(), 0);
        assertArrayEquals(new double[] {0.5}, one.result(), 1e-12);
    }

    @Test
    void refusesAFractionThatWouldCutEverything() {
        assertThrows(IllegalArgumentException.class, () -> new TrimmedMeanAggregator(0.5));
        assertThrows(IllegalArgumentException.class, () -> new TrimmedMeanAggregator(-0.1));
        assertThrows(
                IllegalStateException.class,
                () -> new TrimmedMeanAggregator(0.1).open(1).result());
    }
}
