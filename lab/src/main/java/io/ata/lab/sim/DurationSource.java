package io.ata.lab.sim;

/**
 * Where task durations come from when a round is executed offline: drawn from time models in
 * the simulator, or read back from a recorded timing log in a replay. Worker {@code i}'s
 * {@code k}-th request returns its {@code k}-th duration, whatever policy is being run, so all
 * policies face the same per-worker sequences (common random numbers).
 *
 * <p>A source may describe a fleet that changes over time: {@link #startRound} is called before
 * each round, and {@link #isPresent} says which workers take part in it.
 */
public interface DurationSource {

    /** The next task duration of {@code worker}. */
    double next(int worker);

    /** Called before round {@code round} (from 1) is executed; a changing fleet switches here. */
    default void startRound(long round) {}

    /** Whether {@code worker} takes part in {@code round}: it has joined and not left. */
    default boolean isPresent(int worker, long round) {
        return true;
    }

    /** True if the fleet never changes, so the runner can skip the per-round membership check. */
    default boolean isStationary() {
        return true;
    }

    /** Thrown by a source that has no duration left for a worker and was told to stop. */
    final class ExhaustedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ExhaustedException(String message) {
            super(message);
        }
    }
}
