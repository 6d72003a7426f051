package io.ata.testsupport;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** Waiting for a job's rounds to close, as the end-to-end tests do. */
public final class Rounds {
    private static final Duration POLL = Duration.ofMillis(50);

    private Rounds() {}

    /**
     * Waits until {@code lastClosedRound} is at least {@code round}, for at most {@code timeout};
     * else fails with where the job stalled and {@code state} (e.g. the trainer's failure, the
     * broker's state, the dead letters), read only then.
     *
     * @param lastClosedRound the job's last closed round, read afresh each time (e.g. {@code () ->
     *     trainer.metrics().lastClosedRound()})
     */
    public static void awaitRound(LongSupplier lastClosedRound, long round, Duration timeout, Supplier<String> state) {
        try {
            Awaitility.await()
                    .atMost(timeout)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(POLL)
                    .until(() -> lastClosedRound.getAsLong() >= round);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "stalled before round " + round + " at " + lastClosedRound.getAsLong() + "; " + state.get(), e);
        }
    }
}
