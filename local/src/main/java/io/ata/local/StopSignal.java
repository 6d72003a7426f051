package io.ata.local;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C for commands that run parts of the live system: the JVM's shutdown hook asks the command
 * to stop and then waits (up to a grace period) until the command has closed everything, so
 * consumers leave their groups, transactions are settled and the embedded Kafka broker stops
 * cleanly instead of being cut off. Interrupting the command's thread asks it to stop too, which is
 * how tests and code running a command in a thread end it.
 */
public final class StopSignal implements AutoCloseable {
    private static final Duration GRACE = Duration.ofSeconds(60);

    private final CountDownLatch requested = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;
    private volatile boolean byShutdown;

    private StopSignal(String name) {
        hook = new Thread(
                () -> {
                    byShutdown = true;
                    requested.countDown();
                    try {
                        finished.await(GRACE.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "ata-" + name + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Installs the shutdown hook; close the signal when everything is closed. */
    public static StopSignal install(String name) {
        return new StopSignal(name);
    }

    /** Waits up to {@code timeout} for a stop request; true if one came (Ctrl-C or an interrupt). */
    public boolean await(Duration timeout) {
        try {
            return requested.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            requested.countDown();
            return true;
        }
    }

    /** Whether a stop was requested. */
    public boolean requested() {
        return requested.getCount() == 0 || Thread.currentThread().isInterrupted();
    }

    /** Whether the stop came from the JVM shutting down (Ctrl-C, SIGTERM). */
    public boolean byShutdown() {
        return byShutdown;
    }

    /** Everything is closed: lets a waiting shutdown hook finish, or removes the hook. */
    @Override
    public void close() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running and returns now
        }
    }
}
