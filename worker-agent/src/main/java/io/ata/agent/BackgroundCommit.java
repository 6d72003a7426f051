package io.ata.agent;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.InterruptException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At most one transaction commit running on a thread of its own, so that an agent computes its
 * next task while the previous task's transaction commits. A commit takes a few milliseconds of
 * broker round trips (end of transaction, markers); run in series, an agent with {@code a} tasks
 * in a round paid it {@code a} times on the round's critical path, now once.
 *
 * <p>The rule that keeps this safe: the task thread {@linkplain #await() waits} for the commit in
 * flight before it begins the next transaction. So transactions stay strictly one after another
 * on the producer, and a failed commit is seen before anything later is published (in particular
 * before the offset of the assignment is committed with its last task).
 *
 * <p>{@link #start} and {@link #await} are called by the agent's task thread only.
 */
final class BackgroundCommit implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BackgroundCommit.class);
    private static final CompletableFuture<Void> NONE = CompletableFuture.completedFuture(null);

    private final ExecutorService thread;
    private volatile CompletableFuture<Void> inFlight = NONE;

    /** The commit thread is named {@code ata-agent-<workerId>-commit} and created on first use. */
    BackgroundCommit(String workerId) {
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "ata-agent-" + workerId + "-commit");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Runs {@code commit} on the commit thread. The previous commit must have been awaited.
     *
     * @throws IllegalStateException if a commit is still in flight
     */
    void start(Runnable commit) {
        if (!inFlight.isDone()) {
            throw new IllegalStateException("a commit is already in flight: await it first");
        }
        inFlight = CompletableFuture.runAsync(commit, thread);
    }

    /**
     * Waits for the commit in flight, if there is one, and rethrows its failure (once: the next
     * call returns at once).
     *
     * @throws InterruptException if the task thread is interrupted while waiting (the commit goes on
     *     and {@link #close} waits for it)
     */
    void await() {
        CompletableFuture<Void> commit = inFlight;
        try {
            commit.get();
        } catch (InterruptedException e) {
            throw new InterruptException(e); // Kafka's own: restores the interrupt flag
        } catch (ExecutionException e) {
            inFlight = NONE;
            throw unwrap(e.getCause());
        } catch (CancellationException e) {
            inFlight = NONE;
            throw e;
        }
        inFlight = NONE;
    }

    /** Whether a commit is running now. */
    boolean inFlight() {
        return !inFlight.isDone();
    }

    /**
     * Lets the commit in flight finish (an interrupted agent still finishes it, so no transaction
     * is left open to hold up {@code read_committed} readers), then ends the thread. A failure of
     * that commit, which nobody awaits any more, is logged.
     */
    void close(Duration timeout) {
        thread.shutdown();
        boolean interrupted = Thread.interrupted();
        try {
            if (!thread.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                log.warn("a transaction commit did not finish within {}", timeout);
            }
            inFlight.whenComplete((ok, failure) -> {
                if (failure != null) {
                    log.warn("the last transaction commit failed: {}", failure.toString());
                }
            });
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /** The commit's own exception (get() hands it over unwrapped, inside its ExecutionException). */
    private static RuntimeException unwrap(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            return r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new IllegalStateException("transaction commit failed", cause);
    }
}
