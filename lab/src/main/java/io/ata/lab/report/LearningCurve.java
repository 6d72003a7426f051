package io.ata.lab.report;

import java.util.List;
import java.util.Optional;

/**
 * How a live job's test accuracy grew: its evaluations in round order, and what a reader asks of
 * them (where it ended, when it first reached a target, from when on it held one).
 *
 * @param policy the allocation policy the job ran with
 * @param points the job's evaluations, in round order
 */
public record LearningCurve(String policy, List<EvaluationPoint> points) {

    public LearningCurve {
        points = List.copyOf(points);
    }

    /** The accuracy of the last evaluation; NaN if there was none. */
    public double finalAccuracy() {
        return points.isEmpty() ? Double.NaN : points.get(points.size() - 1).testAccuracy();
    }

    /** The loss of the last evaluation; NaN if there was none. */
    public double finalLoss() {
        return points.isEmpty() ? Double.NaN : points.get(points.size() - 1).testLoss();
    }

    /** The first evaluation whose accuracy is at least {@code target}, if any. */
    public Optional<EvaluationPoint> firstReaching(double target) {
        return points.stream().filter(p -> p.testAccuracy() >= target).findFirst();
    }

    /** Wall seconds to the first evaluation at {@code target} or above; NaN if never reached. */
    public double wallSecondsTo(double target) {
        return firstReaching(target).map(EvaluationPoint::wallSeconds).orElse(Double.NaN);
    }

    /** Worker seconds spent up to the first evaluation at {@code target} or above; NaN if never reached. */
    public double workerSecondsTo(double target) {
        return firstReaching(target).map(EvaluationPoint::workerSeconds).orElse(Double.NaN);
    }

    /**
     * The first evaluation from which on every evaluation is at or above {@code target}: when the
     * job got there to stay, which a single lucky evaluation near a plateau does not decide. Empty
     * if the last evaluation is below it.
     */
    public Optional<EvaluationPoint> firstHolding(double target) {
        EvaluationPoint first = null;
        for (EvaluationPoint p : points) {
            if (p.testAccuracy() < target) {
                first = null;
            } else if (first == null) {
                first = p;
            }
        }
        return Optional.ofNullable(first);
    }

    /** Wall seconds to {@link #firstHolding} {@code target}; NaN if the job did not hold it. */
    public double wallSecondsToHold(double target) {
        return firstHolding(target).map(EvaluationPoint::wallSeconds).orElse(Double.NaN);
    }

    /** Worker seconds spent up to {@link #firstHolding} {@code target}; NaN if the job did not hold it. */
    public double workerSecondsToHold(double target) {
        return firstHolding(target).map(EvaluationPoint::workerSeconds).orElse(Double.NaN);
    }

    double[] wallSeconds() {
        return points.stream().mapToDouble(EvaluationPoint::wallSeconds).toArray();
    }

    double[] workerSeconds() {
        return points.stream().mapToDouble(EvaluationPoint::workerSeconds).toArray();
    }

    double[] accuracies() {
        return points.stream().mapToDouble(EvaluationPoint::testAccuracy).toArray();
    }
}
