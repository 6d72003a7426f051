package io.ata.trainer;

/**
 * What the open round did with one task result ({@link RoundAccumulator#offer}). Every result gets
 * exactly one outcome, so the counters of a round add up to the results it was offered.
 */
public enum OfferOutcome {
    /**
     * A valid result of the open round, and the round still needed it: it joins the batch (its
     * gradient clipped first if its norm is above the round's {@link NormBound}).
     */
    ACCEPTED,
    /**
     * The task id was already seen in this round (accepted, or late): a re-run after a rebalance
     * or an agent restart. Its gradient is not used; its timing is kept, as LATE.
     */
    DUPLICATE,
    /** A result of another round or computed at another model version: dropped, only counted. */
    STALE,
    /**
     * A valid result of the open round with a new task id, arriving after the batch was already
     * full (before the close): the work was not needed. Its timing is kept, as LATE.
     */
    LATE,
    /**
     * A notice that a task of an earlier round was stopped part-way because that round had closed
     * (status CANCELLED, no gradient): GTA's discarded work in flight. Its time worked is kept as a
     * CANCELLED timing of this round, which the broker's statistics take as a censored observation.
     */
    CANCELLED,
    /**
     * A result that cannot be used: out-of-range fields (negative or non-finite compute time, blank
     * ids, another job), or, for a result of the open round, a task id not of the form
     * {@code job/round/index}, a gradient of the wrong length or with NaN or infinite values; or
     * a round or model version the trainer never published (ahead of the open round).
     */
    INVALID
}
