package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.AllocationEntry;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import io.ata.testsupport.RoundEvents;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoundHistoryTest {
    private static AllocationEntry entry(String worker, int tasks) {
        return AllocationEntry.newBuilder()
                .setWorkerId(worker)
                .setPartition(0)
                .setTaskIds(java.util.stream.IntStream.range(0, tasks)
                        .mapToObj(i -> worker + "/" + i)
                        .toList())
                .build();
    }

    private static RoundTiming timing(String worker, double ms, TimingStatus status) {
        return RoundEvents.timing(worker, worker + "/t", ms, status);
    }

    @Test
    void aClosedRoundKeepsItsAllocationAndAddsRoundBusyAndWastedTime() {
        RoundHistory history = new RoundHistory(10);
        history.allocated("j", 1, List.of(entry("a", 3), entry("b", 1)));
        history.closed(RoundEvents.closed(
                "j",
                1,
                4,
                List.of(
                        timing("a", 10, TimingStatus.COMPLETED),
                        timing("a", 12, TimingStatus.COMPLETED),
                        timing("b", 40, TimingStatus.LATE),
                        timing("a", 5, TimingStatus.CANCELLED)),
                0));
        history.allocated("j", 2, List.of(entry("a", 4)));

        List<RoundHistory.Round> rounds = history.recent("j");
        assertEquals(2, rounds.size());
        RoundHistory.Round first = rounds.get(0);
        assertEquals(new RoundHistory.Round(1, Map.of("a", 3, "b", 1), true, 1, 67, 45), first);
        assertEquals(new RoundHistory.Round(2, Map.of("a", 4), false, 0, 0, 0), rounds.get(1));
        assertTrue(history.recent("other").isEmpty());
    }

    @Test
    void keepsTheLastRoundsInOrderAndForgetsJobsThatLeave() {
        RoundHistory history = new RoundHistory(3);
        for (long r = 1; r <= 5; r++) {
            history.allocated("j", r, List.of(entry("a", (int) r)));
        }
        history.allocated("j", 5, List.of(entry("a", 9))); // re-allocated: replaced, not repeated

        assertEquals(
                List.of(3L, 4L, 5L),
                history.recent("j").stream().map(RoundHistory.Round::round).toList());
        assertEquals(Map.of("a", 9), history.recent("j").get(2).tasks());

        history.forget(Set.of("j"));
        assertFalse(history.recent("j").iterator().hasNext());
    }
}
