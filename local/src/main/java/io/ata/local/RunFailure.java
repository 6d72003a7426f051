package io.ata.local;

/**
 * A failure while running whose message is written for the user (Kafka unreachable, a topic
 * missing, a part of the live system that stopped): reported as one line with exit code 1, like a
 * bad input file, not as an internal error.
 */
public final class RunFailure extends RuntimeException {
    public RunFailure(String message) {
        super(message);
    }

    public RunFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
