package io.ata.platform;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** A part's background threads: made so that they never keep the process alive, and awaited on close. */
public final class Threads {
    private Threads() {}

    /** A new thread, not started, that does not keep the process alive (a daemon). */
    public static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** A scheduler on one {@link #daemon} thread named {@code name}. */
    public static ScheduledExecutorService daemonScheduler(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> daemon(task, name));
    }

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
