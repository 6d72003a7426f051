package io.ata.trainer;

/**
 * Scores model versions of one {@link Model} on its held-out test set. One thread at a time; it
 * may hold native resources (a DJL network) until closed.
 */
public interface TestScorer extends AutoCloseable {

    /** The score of the version with {@code parameters}. */
    TestScore score(FlatTensor parameters);

    @Override
    void close();

    /**
     * One model version's score.
     *
     * @param loss     the mean test loss (cross-entropy for a network; the suboptimality for the
     *                 quadratic problem)
     * @param accuracy the fraction of test samples classified right; NaN where it means nothing
     * @param samples  test samples scored (0 for the quadratic problem)
     * @param dataset  the test set's name; empty for the quadratic problem
     */
    record TestScore(double loss, double accuracy, int samples, String dataset) {}
}
