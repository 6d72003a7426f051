package io.ata.trainer;

import io.ata.schemas.Evaluation;

/**
 * Told about every round the trainer closes, and every evaluation it publishes, once the
 * transaction that carries it is committed to Kafka. Called on the trainer's thread, so it should
 * return quickly; an exception it throws is logged and ignored.
 */
@FunctionalInterface
public interface RoundListener {

    /** A listener that does nothing. */
    RoundListener NONE = summary -> {};

    void roundClosed(RoundSummary summary);

    /**
     * A model version's score on the held-out test set was published (the {@code evaluations}
     * topic's record). Evaluations come in version order, each after the close that made its
     * version; does nothing unless overridden.
     */
    default void evaluated(Evaluation evaluation) {}
}
