package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.WorkerStats;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A restarted worker's durations leave the reservoir that eta is estimated from; the others stay in order. */
class EstimatedRelativeWidthForgetTest {

    @Test
    void forgetDropsOnlyThatWorkersDurations() {
        EstimatedRelativeWidth width = new EstimatedRelativeWidth(2.0, ConfidenceWidth.Form.RATIO, 1);
        WorkerStats stats = new WorkerStats(3);
        RoundOutcome outcome = new RoundOutcome(3);
        outcome.reset(1, 3);
        outcome.addCompleted(0, 1, true);
        outcome.addCompleted(1, 2, true);
        outcome.addCompleted(0, 3, true);
        outcome.addCompleted(2, 4, true);
        outcome.foldInto(stats);
        width.observe(stats, outcome);

        width.forget(0);

        EstimatedRelativeWidth.State state = width.snapshot();
        assertArrayEquals(new int[] {1, 2}, state.sampleWorkers());
        assertArrayEquals(new double[] {2, 4}, state.samples());
        assertEquals(4, state.seen(), "the count of durations seen is the estimator's schedule: unchanged");

        outcome.reset(2, 3);
        outcome.addCompleted(0, 5, true);
        outcome.foldInto(stats);
        width.observe(stats, outcome);
        assertEquals("[2.0, 4.0, 5.0]", Arrays.toString(width.snapshot().samples()), "freed slots fill next");
    }
}
