package io.ata.platform.kafka;

/**
 * A transactional producer that can take no more transactions: it could not begin one, could
 * not abort one after a failure, or its commit was cut short too often. Kafka leaves a producer in
 * that state after an error it does not name (e.g. a coordinator that answered an unknown server
 * error in the middle of a commit), so only new clients go on. An {@link IllegalStateException},
 * so a part stops on it ({@link KafkaErrors#isFatal}); the cause says what broke it.
 */
public final class ProducerUnusableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public ProducerUnusableException(String message, Throwable cause) {
        super("transactional producer is unusable: " + message, cause);
    }
}
