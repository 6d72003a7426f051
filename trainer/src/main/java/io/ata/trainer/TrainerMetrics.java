package io.ata.trainer;

/**
 * Counters of one trainer, updated by its thread and readable from any thread: call
 * {@link #snapshot()} for a consistent set of values.
 *
 * <p>Result counters count what the trainer saw, as it saw it: if a transaction had to be aborted
 * (an error, or losing partitions in a rebalance), the results of the open round are read again
 * and counted again. A new trainer instance starts from zero.
 */
public final class TrainerMetrics {
    private long roundsClosed;
    private long lastClosedRound;
    private double lastObjective = Double.NaN;
    private long accepted;
    private long duplicates;
    private long stale;
    private long late;
    private long invalid;
    private long deadLetters;
    private long otherJobs;
    private long recoveries;
    private long cancelled;

    /**
     * The counters at one instant.
     *
     * @param roundsClosed    rounds this trainer instance closed
     * @param lastClosedRound the job's last closed round, i.e. its current model version (also
     *                        what a restarted trainer found)
     * @param lastObjective   the objective of that model version (NaN before the trainer knows it)
     * @param accepted        results accepted into a batch
     * @param duplicates      results whose task id their round had already seen
     * @param stale           results of another round or model version
     * @param late            results of the open round after its batch was full
     * @param invalid         results that could not be used (each also went to dead letters)
     * @param deadLetters     records sent to the dead-letter topic (undecodable or invalid)
     * @param otherJobs       records of other jobs on the gradients topic, ignored
     * @param recoveries      times the trainer aborted its transaction and resumed from Kafka
     * @param cancelled       notices of tasks stopped part-way because their round had closed
     */
    public record Snapshot(
            long roundsClosed,
            long lastClosedRound,
            double lastObjective,
            long accepted,
            long duplicates,
            long stale,
            long late,
            long invalid,
            long deadLetters,
            long otherJobs,
            long recoveries,
            long cancelled) {}

    public synchronized Snapshot snapshot() {
        return new Snapshot(
                roundsClosed,
                lastClosedRound,
                lastObjective,
                accepted,
                duplicates,
                stale,
                late,
                invalid,
                deadLetters,
                otherJobs,
                recoveries,
                cancelled);
    }

    synchronized void resultOffered(OfferOutcome outcome) {
        switch (outcome) {
            case ACCEPTED -> accepted++;
            case DUPLICATE -> duplicates++;
            case STALE -> stale++;
            case LATE -> late++;
            case INVALID -> invalid++;
            case CANCELLED -> cancelled++;
        }
    }

    /** The job's model is at {@code version}, with {@code objective}: at start, and after each close. */
    synchronized void modelAt(long version, double objective) {
        lastClosedRound = version;
        lastObjective = objective;
    }

    synchronized void roundClosed(long round, double objective) {
        roundsClosed++;
        modelAt(round, objective);
    }

    synchronized void deadLettered() {
        deadLetters++;
    }

    synchronized void otherJobIgnored() {
        otherJobs++;
    }

    synchronized void recovered() {
        recoveries++;
    }
}
