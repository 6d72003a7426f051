package io.ata.agent;

import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Which Kafka client errors end the agent. Everything else is treated as transient: the agent
 * aborts the transaction, gives the assignment back to the topic and runs it again (or, for a
 * failed poll, polls again) after a pause.
 */
final class KafkaErrors {

    private KafkaErrors() {}

    /**
     * Errors after which the transactional producer cannot go on (Kafka's "fatal" producer errors:
     * only {@code close()} is left), or that retrying cannot fix (no permission). Also
     * {@link IllegalStateException}, how a producer in a broken state answers.
     */
    static boolean isFatal(Throwable e) {
        return e instanceof ProducerFencedException
                || e instanceof FencedInstanceIdException
                || e instanceof OutOfOrderSequenceException
                || e instanceof AuthorizationException
                || e instanceof AuthenticationException
                || e instanceof UnsupportedVersionException
                || e instanceof IllegalStateException;
    }

    /**
     * Whether another agent took over our identity: the same worker id (and so the same
     * {@code transactional.id}) runs elsewhere. Such an agent must not announce LEAVING, since the
     * heartbeat would speak for the other one.
     */
    static boolean isFenced(Throwable e) {
        return e instanceof ProducerFencedException || e instanceof FencedInstanceIdException;
    }
}
