package io.ata.lab.report;

/**
 * One evaluation of a live job's model version on the held-out test set, placed on the job's two
 * time axes.
 *
 * @param round         the model version scored: rounds closed when it was published
 * @param wallSeconds   from the job's start to that version's publication
 * @param workerSeconds the compute time of every task the agents had run for the job by then
 *                      (accepted, late and cancelled alike)
 * @param testLoss      mean cross-entropy on the test samples
 * @param testAccuracy  fraction of the test samples classified right, in [0, 1]
 */
public record EvaluationPoint(
        long round, double wallSeconds, double workerSeconds, double testLoss, double testAccuracy) {}
