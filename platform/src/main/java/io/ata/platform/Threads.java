package io.ata.platform;

import java.time.Duration;

/** Waiting for a part's background thread when the part closes. */
public final class Threads {
    private Threads() {}

    /**
     * Waits up to {@code timeout} for {@code thread} to end, once it was told to stop: a close must
     * not hang on a thread that does not answer. An interrupt ends the wait and stays set, so the
     * caller's own caller sees it.
     */
    public static void awaitEnd(Thread thread, Duration timeout) {
        try {
            thread.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
