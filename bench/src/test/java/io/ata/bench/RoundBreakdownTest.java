package io.ata.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.timinglog.TimingRecord;
import io.ata.lab.timinglog.TimingRecord.Status;
import io.ata.testsupport.Records;
import io.ata.trainer.RoundSummary;
import io.ata.workeragent.AssignmentListener;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A live round taken apart against its own draws, on a round whose every part is known. */
class RoundBreakdownTest {
    private static final long SECOND = 1_000_000_000L;

    /** A task of round 2 of worker {@code w}: {@code ms} of compute, ended at {@code endMs}. */
    private static TimingRecord task(String w, double ms, long endMs, Status status) {
        return new TimingRecord(w, ms, 2L, w + endMs, endMs, status);
    }

    // worker a runs 10 then 20 ms (2 ms apart), b 15 ms then a late 30 ms; b's third was cancelled
    private static final List<TimingRecord> ROUND_2 = List.of(
            task("a", 10, 1013, Status.COMPLETED),
            task("a", 20, 1035, Status.COMPLETED),
            task("b", 15, 1020, Status.COMPLETED),
            task("b", 30, 1050, Status.LATE),
            task("b", 1, 1051, Status.CANCELLED));

    @Test
    void theDrawsPlayedBackToBackEndAtTheBthSmallestRunningSumOfFullTaskTimes() {
        // running sums: a 10, 30; b 15, 45 (the late task counts, the cancelled one does not)
        assertEquals(15, RoundBreakdown.drawsBackToBack(ROUND_2, 2));
        assertEquals(30, RoundBreakdown.drawsBackToBack(ROUND_2, 3));
        assertEquals(45, RoundBreakdown.drawsBackToBack(ROUND_2, 4));
        assertTrue(Double.isNaN(RoundBreakdown.drawsBackToBack(ROUND_2, 5)), "fewer tasks finished than B");
    }

    @Test
    void theOverheadSplitsAlongTheWorkerWhoseAcceptedTaskEndedLast() {
        RoundBreakdown breakdown = new RoundBreakdown("j", 3);
        AssignmentListener starts = breakdown.starts();
        breakdown.roundClosed(closed(1, 50, SECOND));
        starts.started(Records.assignment("other", 2, "a", 1).build(), SECOND); // another job's: not ours
        starts.started(Records.assignment("j", 2, "a", 2).build(), SECOND + 3_000_000);
        starts.started(Records.assignment("j", 2, "b", 2).build(), SECOND + 5_000_000);
        breakdown.roundClosed(closed(2, 40, 2 * SECOND));
        breakdown.roundClosed(closed(3, 45, 3 * SECOND)); // its tasks' timings never came: left out

        RoundBreakdown.Summary s = breakdown.summarize(ROUND_2, 1.5);

        assertEquals(1, s.rounds(), "round 1 had no close before it, round 3 no timings");
        assertEquals(40, s.liveMs());
        assertEquals(30, s.drawsMs());
        assertEquals(10, s.overheadMs());
        assertEquals(4.0 / 3, s.ratio(), 1e-12);
        assertEquals(1.5, s.publishMs());
        assertEquals(3, s.modelToStartMs(), 1e-9, "a's start, 3 ms after round 1's close committed");
        assertEquals(2, s.betweenTasksMs(), 1e-9, "a's second task started 2 ms after its first ended");
        assertEquals(3.5, s.resultToTrainerMs(), 1e-9, "the rest of the overhead");
    }

    private static RoundSummary closed(long round, double ms, long committedNanos) {
        return new RoundSummary("j", round, ms, 0, 3, 0, 0, 0, 0, 0, committedNanos);
    }
}
