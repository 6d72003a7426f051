package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class HeldOffsetsTest {
    private final HeldOffsets<Integer> offsets = new HeldOffsets<>();

    /** Marks the record done after its commit, as the agents do; returns the offset committed. */
    private long done(int partition, long offset) {
        long commit = offsets.commitOffset(partition, offset);
        offsets.done(partition, offset);
        return commit;
    }

    @Test
    void recordsDoneInOrderCommitPastThemselves() {
        assertEquals(1, done(0, 0));
        assertEquals(2, done(0, 1));
    }

    @Test
    void noCommitPassesAHeldRecordUntilItIsDone() {
        offsets.hold(0, 5);
        assertEquals(5, done(0, 6), "held at 5");
        assertEquals(5, done(0, 7));
        assertEquals(8, done(0, 5), "past every record done once 5 is");
        assertEquals(9, done(0, 8), "in order again");
    }

    @Test
    void theOldestOfSeveralHeldRecordsBoundsTheCommit() {
        offsets.hold(0, 3);
        offsets.hold(0, 4);
        assertEquals(3, done(0, 4));
        assertEquals(5, done(0, 3));
    }

    @Test
    void partitionsAreApartAndAForgottenOneIsInOrderAgain() {
        offsets.hold(0, 2);
        offsets.hold(1, 2);
        assertEquals(2, done(0, 3));
        offsets.forget(List.of(0));
        assertEquals(4, done(0, 3), "its next owner's records");
        assertEquals(2, done(1, 3), "partition 1 still held");
        offsets.retain(List.of());
        assertEquals(4, done(1, 3));
    }
}
