package io.ata.trainer;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.RoundEvent;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the trainer publishes in one transaction when the job moves on: a model version, the
 * optimizer state that goes with it, and the round events, in order. Either the job's start
 * (model version 0, OPENED 1) or a close (model version k, CLOSED k, and OPENED k+1 unless k was
 * the last round). The model and the state are whole here; {@link TransitionRecords} slices them
 * into records that fit Kafka.
 *
 * @param model          the new model version (topic {@code model}, key the job)
 * @param optimizerState the optimizer's state after that version (topic {@code optimizer}), or
 *                       null for a stateless optimizer
 * @param roundEvents    the round events (topic {@code rounds}, key the job), in publishing order
 * @param closed         the round this transition closes, or {@code null} for the job's start
 */
public record Transition(
        ModelVersion model, OptimizerState optimizerState, List<RoundEvent> roundEvents, RoundSummary closed) {

    public Transition {
        Objects.requireNonNull(model, "model");
        roundEvents = List.copyOf(roundEvents);
    }

    /** The optimizer state, if the optimizer has one. */
    public Optional<OptimizerState> optimizer() {
        return Optional.ofNullable(optimizerState);
    }
}
