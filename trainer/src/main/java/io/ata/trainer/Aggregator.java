package io.ata.trainer;

/**
 * How the B accepted gradients of a round become the one gradient the optimizer steps with. The
 * default is their mean ({@link MeanAggregator}); another rule (a trimmed mean, a median against
 * faulty workers) plugs in here without touching the round's rules.
 *
 * <p>Gradients arrive decoded to double, whatever their encoding (FLOAT64, FLOAT32, FLOAT16,
 * BFLOAT16: widening is exact), and are combined in double.
 */
public interface Aggregator {

    /** The rule's name, e.g. {@code mean}, for logs. */
    String describe();

    /** An empty aggregate for one round of gradients of {@code dimension} values. */
    Aggregate open(int dimension);

    /** One round's accepted gradients, added in the order they were accepted. */
    interface Aggregate {

        /** Adds an accepted gradient (already checked: the right length, finite values). */
        void add(double[] gradient);

        /** The gradient to step with, from those added so far (at least one). */
        double[] result();
    }
}
