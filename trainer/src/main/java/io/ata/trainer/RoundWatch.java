package io.ata.trainer;

/** A job's watch over its open round, however it reads {@code allocations} ({@link RoundWatches}). */
@FunctionalInterface
interface RoundWatch {
    /** Stops the watch: once this returns, it acts no more for the job. */
    void stop();
}
