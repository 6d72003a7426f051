package io.ata.sim;

/**
 * Where task durations come from when a round is executed offline: drawn from time models in
 * the simulator, or read back from a recorded timing log in a replay. Worker {@code i}'s
 * {@code k}-th request returns its {@code k}-th duration, whatever policy is being run, so all
 * policies face the same per-worker sequences (common random numbers).
 */
public interface DurationSource {

    /** The next task duration of {@code worker}. */
    double next(int worker);

    /** Thrown by a source that has no duration left for a worker and was told to stop. */
    final class ExhaustedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ExhaustedException(String message) {
            super(message);
        }
    }
}
