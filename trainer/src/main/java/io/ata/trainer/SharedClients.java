package io.ata.trainer;

import org.apache.kafka.clients.producer.Producer;

/**
 * What a {@link TrainerHost} shares among its trainers: the reading of {@code gradients}, and the
 * producer of OVERDUE round events (idempotent, not transactional: thread-safe, and no part of a
 * round's exactly-once state). A trainer alone shares nothing.
 *
 * @param gradients       how the trainer reads its job's results
 * @param overdueProducer the OVERDUE events' producer, owned by the host; null: the trainer's own
 */
record SharedClients(GradientSources gradients, Producer<String, byte[]> overdueProducer) {
    /** A trainer alone: a consumer and a producer of its own. */
    static final SharedClients NONE = new SharedClients(GradientSources.OWN_CONSUMER, null);
}
