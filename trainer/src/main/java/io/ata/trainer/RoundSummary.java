package io.ata.trainer;

/**
 * One closed round, for progress reports ({@link RoundListener}) and logs.
 *
 * @param job         the job
 * @param round       k, the round that closed; the model is now at version k
 * @param roundTimeMs wall time from the round's open to its B-th accepted result
 * @param objective   the objective of model version k
 * @param accepted    results in the batch (B)
 * @param duplicates  results whose task id the round had already seen
 * @param stale       results of other rounds or model versions seen while the round was open
 * @param late        results not needed any more (the batch was full)
 * @param invalid     results that could not be used (sent to dead letters)
 * @param clipped     accepted results whose gradient was clipped to the norm bound
 * @param committedNanos {@link System#nanoTime()} when the close's transaction commit returned (0
 *                    before): where a measurement in the trainer's process starts the next round's
 *                    clock, unmoved by what the trainer does after the commit or how late its
 *                    listener runs
 */
public record RoundSummary(
        String job,
        long round,
        double roundTimeMs,
        double objective,
        int accepted,
        int duplicates,
        int stale,
        int late,
        int invalid,
        int clipped,
        long committedNanos) {

    static RoundSummary of(RoundAccumulator closed, double objective) {
        return new RoundSummary(
                closed.job(),
                closed.round(),
                closed.roundTimeMs(),
                objective,
                closed.accepted(),
                closed.count(OfferOutcome.DUPLICATE),
                closed.count(OfferOutcome.STALE),
                closed.count(OfferOutcome.LATE),
                closed.count(OfferOutcome.INVALID),
                closed.clipped(),
                0);
    }

    /** This summary, its close committed at {@code nanoTime}. */
    RoundSummary committedAt(long nanoTime) {
        return new RoundSummary(
                job, round, roundTimeMs, objective, accepted, duplicates, stale, late, invalid, clipped, nanoTime);
    }
}
