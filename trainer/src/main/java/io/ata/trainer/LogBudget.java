package io.ata.trainer;

/**
 * At most so many log lines of one kind per time window; the rest are counted, and the first line
 * asked for after the window ended says how many were held back. A flood of forged records must not turn into a flood of log lines
 * (each one already has its dead letter, which says more).
 *
 * <p>Not thread-safe: one thread logs through it.
 */
final class LogBudget {
    private final int linesPerWindow;
    private final long windowMs;
    private long windowStartMs = Long.MIN_VALUE;
    private int logged;
    private long heldBack;
    private long lastHeldBack;

    LogBudget(int linesPerWindow, long windowMs) {
        this.linesPerWindow = linesPerWindow;
        this.windowMs = windowMs;
    }

    /**
     * Whether one more line may be logged at {@code nowMs}. Call {@link #heldBackLastWindow} after
     * it to learn how many lines the window that just ended held back.
     */
    boolean allow(long nowMs) {
        lastHeldBack = 0;
        if (windowStartMs == Long.MIN_VALUE || nowMs - windowStartMs >= windowMs) {
            lastHeldBack = heldBack;
            windowStartMs = nowMs;
            logged = 0;
            heldBack = 0;
        }
        if (logged < linesPerWindow) {
            logged++;
            return true;
        }
        heldBack++;
        return false;
    }

    /** How many lines the window that ended at the last {@link #allow} call held back (0 if none ended then). */
    long heldBackLastWindow() {
        return lastHeldBack;
    }

    long windowMs() {
        return windowMs;
    }
}
