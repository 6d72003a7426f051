package io.ata.trainer;

/**
 * What a {@link TrainerHost} shares among its trainers: the reading of {@code gradients}, and the
 * watch of {@code allocations} with its producer of OVERDUE round events. A trainer alone shares
 * nothing.
 *
 * @param gradients how the trainer reads its job's results
 * @param watches   how the trainer watches its open round
 */
record SharedClients(GradientSources gradients, RoundWatches watches) {
    /** A trainer alone: clients of its own. */
    static final SharedClients NONE = new SharedClients(GradientSources.OWN_CONSUMER, RoundWatches.OWN_READER);
}
