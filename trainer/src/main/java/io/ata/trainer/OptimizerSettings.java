package io.ata.trainer;

/**
 * The hyper-parameters given for a job's optimizer, each null when not given; a rule takes its
 * defaults for those and refuses the ones that are not its own, so a setting is never silently
 * ignored.
 *
 * @param network whether the job trains a network (rather than the quadratic problem): some
 *     defaults differ
 */
public record OptimizerSettings(
        Double learningRate,
        Double momentum,
        Double weightDecay,
        Double beta1,
        Double beta2,
        Double epsilon,
        boolean network) {

    /** Nothing given: every default. */
    public static OptimizerSettings defaults(boolean network) {
        return new OptimizerSettings(null, null, null, null, null, null, network);
    }

    /** Whether any setting was given. */
    public boolean anyGiven() {
        return learningRate != null
                || momentum != null
                || weightDecay != null
                || beta1 != null
                || beta2 != null
                || epsilon != null;
    }

    /** {@code value}, or {@code otherwise} if it was not given. */
    static double or(Double value, double otherwise) {
        return value == null ? otherwise : value;
    }
}
