package io.ata.testsupport;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;

/** Assertions on dead letters, as the tests of every part that writes them make them. */
public final class Letters {
    private Letters() {}

    /** Asserts that {@code letter}'s reason holds {@code words}; the failure shows the whole reason. */
    public static void assertReason(DeadLetter letter, String words) {
        assertTrue(letter.getReason().contains(words), letter.getReason());
    }
}
