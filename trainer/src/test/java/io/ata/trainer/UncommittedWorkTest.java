package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.decoding.DeadLetters;
import org.junit.jupiter.api.Test;

class UncommittedWorkTest {
    private static final DeadLetters LETTERS = new DeadLetters(DeadLetters.TRAINER);

    private static DeadLetter letterOf(long offset) {
        return LETTERS.of("ata.gradients", 0, offset, null, new byte[] {1}, "bad", null, 0);
    }

    @Test
    void aHeldRecordJudgedAfterALaterOneIsStillLettered() {
        UncommittedWork work = new UncommittedWork();
        assertTrue(work.deadLetter(letterOf(12), 0), "read after the held one, judged first");
        work.lettersPublished();
        assertTrue(work.deadLetter(letterOf(10), 5), "the held one: its letter is not lost");
        assertEquals(5, work.firstLetterAtMs());
    }

    @Test
    void aRecordReadAgainAfterADropIsNotLetteredTwiceUntilTheCommit() {
        UncommittedWork work = new UncommittedWork();
        work.deadLetter(letterOf(3), 0);
        work.lettersPublished();
        work.clear(); // the open round's work dropped: read again
        assertFalse(work.deadLetter(letterOf(3), 1), "its letter is out already");
        assertTrue(work.deadLetters().isEmpty());
        work.deadLetter(letterOf(4), 1);
        work.clear();
        assertTrue(work.deadLetter(letterOf(4), 2), "never published: lettered when read again");
        work.committed();
        assertTrue(work.deadLetter(letterOf(3), 3), "after a commit nothing before it is read again");
    }
}
