package io.ata.workeragent;

import io.ata.schemas.ModelVersion;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Where the agent learns the newest model of each job. It is both the input of a task (the model
 * to compute at) and the signal that a round is over (a newer version exists). An interface, so
 * the assignment logic can be tested with an in-memory source; {@link ModelCache} is the real one.
 */
public interface ModelSource {

    /** The newest model version of {@code job} seen so far, if any. */
    Optional<ModelVersion> latest(String job);

    /**
     * Waits until the newest version of {@code job} is at least {@code version} and returns it
     * (it may be newer than asked: the caller must check), or empty after {@code timeout}, or
     * less than a millisecond before it (a caller that must wait out the fraction parks it).
     */
    Optional<ModelVersion> await(String job, long version, Duration timeout) throws InterruptedException;

    /**
     * Whether a version of {@code job} at least {@code version} is arriving: some of its slices
     * are read, not all yet (a large model on its way, worth waiting longer for).
     */
    boolean arriving(String job, long version);

    /**
     * How long since the source last read anything of {@code job}'s model (a slice or a whole
     * version); {@link ChronoUnit#FOREVER} if it never did. A job whose model stays quiet for long
     * has likely stopped (its trainer gone).
     */
    Duration quietFor(String job);

    /**
     * The agent needs {@code job}'s model and has none: if the source forgot it (quiet for long),
     * it reads it again, and {@link #readingAgain} says so meanwhile. Whether it is being read again.
     */
    default boolean recall(String job) {
        return false;
    }

    /** Whether {@code job}'s model is being read again ({@link #recall}); starts nothing. */
    default boolean readingAgain(String job) {
        return false;
    }

    /**
     * Whether the source forgot {@code job}'s model (quiet for long) and has not read it again:
     * what it knows of the job then says nothing of which versions can come.
     */
    default boolean forgot(String job) {
        return false;
    }

    /**
     * Where {@code job}'s version {@code version} was read, if it is one of the job's last few
     * versions read: the record a task that started on it early ({@link EarlyStart}) must match.
     * Empty for older versions, and from a source that does not know.
     */
    default Optional<ModelPosition> committedAt(String job, long version) {
        return Optional.empty();
    }

    /**
     * Waits until the source has read what the topic held when it started (a version it has not
     * read yet may exist before that), for at most {@code timeout}; whether it has.
     */
    default boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return true;
    }
}
