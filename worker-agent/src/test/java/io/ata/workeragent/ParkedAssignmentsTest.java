package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.testsupport.MockClients;
import io.ata.workeragent.ParkedAssignments.Parked;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** What is parked, and how far each partition may be committed around it. */
class ParkedAssignmentsTest {

    private static final TopicPartition P3 = new TopicPartition(Fixtures.TASKS, 3);
    private static final TopicPartition P5 = new TopicPartition(Fixtures.TASKS, 5);

    private final ParkedAssignments parked = new ParkedAssignments();

    /** Round {@code round} of {@code job} (at version {@code round - 1}) at {@code offset} of {@code partition}. */
    private static Parked parkedAt(TopicPartition partition, long offset, String job, long round) {
        return parkedAt(partition, offset, job, round, 0);
    }

    private static Parked parkedAt(TopicPartition partition, long offset, String job, long round, long atNanos) {
        return new Parked(
                MockClients.consumerRecord(Fixtures.TASKS, partition.partition(), offset, "w1", new byte[] {1}),
                Fixtures.assignment(job, round, "w1", 1),
                atNanos);
    }

    @Test
    void theSameRecordParkedAgainKeepsItsFirstTime() {
        parked.park(parkedAt(P3, 10, "a", 5, 1_000));
        parked.park(parkedAt(P3, 10, "a", 5, 9_000)); // delivered again after a failed attempt

        assertEquals(1, parked.size());
        Parked kept = parked.all().get(0);
        assertEquals(1_000, kept.parkedAtNanos());
        assertEquals(Duration.ofNanos(4_000), kept.waited(5_000));
    }

    /** Marks {@code offset} of {@code partition} done as the agent does: the offset it commits, then done. */
    private long markDone(TopicPartition partition, long offset) {
        long committed = parked.commitOffset(partition, offset);
        parked.done(partition, offset);
        return committed;
    }

    @Test
    void withNothingParkedEachRecordCommitsPastItself() {
        assertEquals(1, markDone(P3, 0));
        assertEquals(2, markDone(P3, 1));
        assertEquals(10, markDone(P5, 9));
    }

    @Test
    void theCommitStopsAtTheOldestParkedRecordOfItsPartitionOnly() {
        assertEquals(10, markDone(P3, 9));
        parked.park(parkedAt(P3, 10, "job", 5));
        assertEquals(10, markDone(P3, 11), "the copy of round 4 behind the parked round 5");
        parked.park(parkedAt(P3, 12, "job", 5));
        assertEquals(10, markDone(P3, 13));
        assertEquals(8, markDone(P5, 7), "another partition goes on");

        assertEquals(12, markDone(P3, 10), "the oldest parked one done: up to the next parked");
        assertEquals(14, markDone(P3, 12), "the last: past the highest done");
        assertEquals(0, parked.size());
        assertEquals(15, markDone(P3, 14));
    }

    @Test
    void aParkedRecordDoneBeforeTheRecordsAfterItCommitsPastItselfOnly() {
        parked.park(parkedAt(P3, 10, "job", 5));
        assertEquals(11, markDone(P3, 10));
        assertEquals(12, markDone(P3, 11));
    }

    @Test
    void theOldestParkedComesFirstPerPartitionAndAwaitsItsVersion() {
        parked.park(parkedAt(P5, 4, "other", 2));
        parked.park(parkedAt(P3, 12, "job", 6));
        parked.park(parkedAt(P3, 10, "job", 5));

        assertEquals(
                List.of(10L, 12L, 4L),
                parked.all().stream().map(p -> p.record().offset()).toList());
        assertTrue(parked.awaits("job", 4), "round 5 computes on version 4");
        assertTrue(parked.awaits("job", 7), "a version past it too: it is then skipped");
        assertFalse(parked.awaits("job", 3));
        assertFalse(parked.awaits("third", 100));
        assertTrue(parked.awaits("other", 1));
    }

    @Test
    void aRevokedPartitionsParkedAssignmentsAndProgressAreDropped() {
        parked.park(parkedAt(P3, 10, "job", 5));
        markDone(P3, 11);
        parked.park(parkedAt(P5, 4, "job", 5));

        assertEquals(1, parked.forget(List.of(P3)));

        assertEquals(
                List.of(4L), parked.all().stream().map(p -> p.record().offset()).toList());
        // owned again later, from the committed offset (10): nothing of before counts
        assertEquals(11, markDone(P3, 10));
        parked.clear();
        assertEquals(0, parked.size());
        assertFalse(parked.awaits("job", 10));
    }
}
