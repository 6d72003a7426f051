package io.ata.trainer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How far the job has come, as its trainer knows it: the current model version (the job's last
 * closed round, also one that an earlier trainer closed) and its objective. This is state the
 * trainer's callers wait on ({@link Trainer#awaitRounds}), not a metric: the trainer thread sets it
 * when it takes the job up and after each committed close; any thread reads it.
 */
final class JobProgress {
    private long modelVersion;
    private double objective = Double.NaN;
    /** The trainer stopped: nobody waits for more. */
    private boolean ended;

    /** The job's model is at {@code version}, with {@code objective}: at start, and after each close. */
    synchronized void modelAt(long version, double objective) {
        this.modelVersion = version;
        this.objective = objective;
        notifyAll();
    }

    /** The trainer stopped: waiters return. */
    synchronized void ended() {
        ended = true;
        notifyAll();
    }

    synchronized long modelVersion() {
        return modelVersion;
    }

    /** The objective of the current model version; NaN before the trainer knows it. */
    synchronized double objective() {
        return objective;
    }

    /**
     * Waits until the model version is at least {@code version}.
     *
     * @return true once reached; false on timeout, or if the trainer stopped before
     */
    synchronized boolean awaitModelVersion(long version, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (modelVersion < version) {
            long left = deadline - System.nanoTime();
            if (ended || left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }
}
