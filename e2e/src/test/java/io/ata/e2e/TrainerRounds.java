package io.ata.e2e;

import io.ata.testsupport.Rounds;
import io.ata.trainer.Trainer;
import java.time.Duration;
import java.util.function.Supplier;

/** Waiting for a live trainer's rounds to close: {@link Rounds#awaitRound} on the trainer's own count. */
final class TrainerRounds {
    private TrainerRounds() {}

    /** Waits until {@code trainer} has closed {@code round}; else fails with where it stalled and its failure. */
    static void awaitRound(Trainer trainer, long round, Duration timeout) {
        awaitRound(trainer, round, timeout, () -> "trainer " + trainer.failure());
    }

    /**
     * Waits until {@code trainer} has closed {@code round}; else fails with where it stalled and
     * {@code state}, read only then.
     */
    static void awaitRound(Trainer trainer, long round, Duration timeout, Supplier<String> state) {
        Rounds.awaitRound(() -> trainer.metrics().lastClosedRound(), round, timeout, state);
    }
}
