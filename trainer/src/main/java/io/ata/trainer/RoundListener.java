package io.ata.trainer;

/**
 * Told about every round the trainer closes, once the close is committed to Kafka. Called on the
 * trainer's thread, so it should return quickly; an exception it throws is logged and ignored.
 */
@FunctionalInterface
public interface RoundListener {

    /** A listener that does nothing. */
    RoundListener NONE = summary -> {};

    void roundClosed(RoundSummary summary);
}
