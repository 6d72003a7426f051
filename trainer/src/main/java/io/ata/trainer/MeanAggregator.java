package io.ata.trainer;

/**
 * The mean of the accepted gradients: their sum in double, in the order they were accepted,
 * divided by their number. The order is the order of the gradients topic, which a restarted
 * trainer reads again the same way, so the mean is reproduced bit for bit.
 */
public final class MeanAggregator implements Aggregator {
    public static final MeanAggregator INSTANCE = new MeanAggregator();
    /** Its entry in the {@link TrainerRules#aggregators()}. */
    public static final AggregatorDefinition DEFINITION =
            new AggregatorDefinition("mean", "the mean of the B gradients (the default)", settings -> INSTANCE);

    private MeanAggregator() {}

    @Override
    public String describe() {
        return "mean";
    }

    @Override
    public Aggregate open(int dimension) {
        return new Sum(dimension);
    }

    private static final class Sum implements Aggregate {
        private final double[] sum;
        private int count;

        Sum(int dimension) {
            this.sum = new double[dimension];
        }

        @Override
        public void add(double[] gradient) {
            if (gradient.length != sum.length) {
                throw new IllegalArgumentException(
                        "gradient has " + gradient.length + " values, the round " + sum.length);
            }
            for (int i = 0; i < sum.length; i++) {
                sum[i] += gradient[i];
            }
            count++;
        }

        @Override
        public double[] result() {
            if (count == 0) {
                throw new IllegalStateException("no gradient to average");
            }
            double[] mean = new double[sum.length];
            for (int i = 0; i < sum.length; i++) {
                mean[i] = sum[i] / count;
            }
            return mean;
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
