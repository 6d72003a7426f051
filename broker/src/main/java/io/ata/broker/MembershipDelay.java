package io.ata.broker;

/**
 * How late heartbeats reach this instance's membership store: from a heartbeat's own time to the
 * moment the store takes it, the smallest such delay among the heartbeats of the last complete
 * window.
 *
 * <p>Liveness compares a worker's last heartbeat with the clock. When the broker is overloaded,
 * its membership path (workers topic, validation, the exactly-once membership topic, the global
 * store) can fall behind by more than the liveness timeout, and then every worker would look gone
 * at once and every round would wait for heartbeats that are only late. A worker counts as gone
 * when its heartbeat is older than the timeout plus this delay: a lagging path lengthens the
 * timeout by its lag, a prompt one leaves it as it is. The smallest delay of a window, not the
 * mean: a worker whose clock runs behind makes its own heartbeats look late, not everyone's.
 * When heartbeats stop coming (a whole fleet gone), the last measured delay stays: workers that
 * stopped still go after the timeout plus the lag the path last had.
 *
 * <p>Thread-safe: the global store's thread records, the stream threads and the metrics read.
 */
final class MembershipDelay {
    private static final long NONE = -1;
    private final long windowMs;
    private long windowStartMs = Long.MIN_VALUE / 2;
    private long windowMinMs = NONE;
    private long settledMs;

    /** @param windowMs how long a window of heartbeats lasts: their smallest delay is the measure */
    MembershipDelay(long windowMs) {
        if (windowMs <= 0) {
            throw new IllegalArgumentException("window must be positive: " + windowMs);
        }
        this.windowMs = windowMs;
    }

    /** A heartbeat of time {@code heartbeatMs} reached the store at {@code storedAtMs}. */
    synchronized void stored(long heartbeatMs, long storedAtMs) {
        if (storedAtMs >= windowStartMs + windowMs) {
            if (windowMinMs != NONE) {
                settledMs = windowMinMs;
            }
            windowStartMs = storedAtMs;
            windowMinMs = NONE;
        }
        // a heartbeat stamped ahead of this clock (its host's clock runs fast) arrived at once
        long delay = Math.max(0, storedAtMs - heartbeatMs);
        windowMinMs = windowMinMs == NONE ? delay : Math.min(windowMinMs, delay);
    }

    /** The delay at {@code nowMs}: the smallest of the last window that has ended, 0 before any. */
    synchronized long delayMs(long nowMs) {
        if (windowMinMs != NONE && nowMs >= windowStartMs + windowMs) {
            return windowMinMs;
        }
        return settledMs;
    }
}
