package io.ata.trainer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The coordinate-wise trimmed mean of the accepted gradients: for every parameter, the B values
 * are sorted, the {@code floor(trim x B)} smallest and as many largest are dropped, and the rest
 * averaged. A few workers that send wrong but plausible gradients (below the {@link NormBound})
 * then move no coordinate beyond the range of the honest ones. With {@code trim} 0 it is the mean
 * up to the order of the additions.
 *
 * <p>It keeps every accepted gradient until the close: B x d doubles (the mean keeps d), so for a
 * large network it costs B times the mean's memory. Sorting per coordinate makes the result
 * independent of the arrival order.
 */
public final class TrimmedMeanAggregator implements Aggregator {
    /** Its entry in the {@link TrainerRules#aggregators()}. */
    public static final AggregatorDefinition DEFINITION = new AggregatorDefinition(
            "trimmed-mean",
            "per coordinate, the mean without the trim fraction of largest and smallest values",
            settings -> new TrimmedMeanAggregator(settings.trimFraction()));

    private final double trim;

    /** @param trim the fraction cut from each end, in [0, 0.5) */
    public TrimmedMeanAggregator(double trim) {
        if (!(trim >= 0 && trim < 0.5)) {
            throw new IllegalArgumentException("trim fraction must be in [0, 0.5), was " + trim);
        }
        this.trim = trim;
    }

    /** The fraction cut from each end. */
    public double trim() {
        return trim;
    }

    @Override
    public String describe() {
        return "trimmed-mean(" + trim + ")";
    }

    @Override
    public Aggregate open(int dimension) {
        return new Kept(dimension);
    }

    /** How many values are cut from each end of {@code n}: floor(trim x n), leaving at least one. */
    int cut(int n) {
        return Math.min((int) Math.floor(trim * n), (n - 1) / 2);
    }

    private final class Kept implements Aggregate {
        private final int dimension;
        private final List<double[]> gradients = new ArrayList<>();

        Kept(int dimension) {
            this.dimension = dimension;
        }

        @Override
        public void add(double[] gradient) {
            if (gradient.length != dimension) {
                throw new IllegalArgumentException(
                        "gradient has " + gradient.length + " values, the round " + dimension);
            }
            gradients.add(gradient.clone());
        }

        @Override
        public double[] result() {
            int n = gradients.size();
            if (n == 0) {
                throw new IllegalStateException("no gradient to average");
            }
            int cut = cut(n);
            double[] column = new double[n];
            double[] result = new double[dimension];
            for (int i = 0; i < dimension; i++) {
                for (int j = 0; j < n; j++) {
                    column[j] = gradients.get(j)[i];
                }
                Arrays.sort(column);
                double sum = 0;
                for (int j = cut; j < n - cut; j++) {
                    sum += column[j];
                }
                result[i] = sum / (n - 2 * cut);
            }
            return result;
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
