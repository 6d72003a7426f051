package io.ata.lab.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.TaskDeadlines;
import io.ata.allocation.WorkerStats;
import org.junit.jupiter.api.Test;

/** Backup tasks in the simulator's executor: who runs what, and nothing counted twice. */
class BackupRoundExecutorTest {
    private static final double NEVER = Double.POSITIVE_INFINITY;

    /** Deadlines and expected times given per worker. */
    private record Fixed(double[] deadline, double[] expected) implements TaskDeadlines {
        @Override
        public double deadline(int worker) {
            return deadline[worker];
        }

        @Override
        public double expectedTime(int worker) {
            return expected[worker];
        }
    }

    private static RoundPlan plan(int quota, int... queues) {
        return RoundExecutorTest.plan(quota, queues);
    }

    private static RoundOutcome run(RoundPlan plan, double[][] durations, TaskDeadlines deadlines) {
        int[] next = new int[durations.length];
        RoundOutcome out = new RoundOutcome(durations.length);
        new RoundExecutor().run(plan, w -> durations[w][next[w]++], deadlines, out, durations.length);
        return out;
    }

    private static int completed(RoundOutcome out) {
        int total = 0;
        for (int k = 0; k < out.workerCount(); k++) {
            total += out.completed(out.worker(k));
        }
        return total;
    }

    @Test
    void aRoundWithNothingOverdueIsTheRoundWithoutDeadlines() {
        double[][] durations = {{1, 2, 3}, {}, {4, 5}};
        RoundOutcome plain = new RoundOutcome(3);
        int[] next = new int[3];
        new RoundExecutor().run(plan(5, 3, 0, 2), w -> durations[w][next[w]++], plain, 3);
        RoundOutcome withDeadlines =
                run(plan(5, 3, 0, 2), durations, new Fixed(new double[] {3, 3, 5}, new double[] {2, 2, 4.5}));
        assertEquals(plain.roundTime(), withDeadlines.roundTime(), 0);
        assertEquals(plain.busyTime(), withDeadlines.busyTime(), 0);
        for (int k = 0; k < plain.durationCount(); k++) {
            assertEquals(plain.durationWorker(k), withDeadlines.durationWorker(k));
            assertEquals(plain.duration(k), withDeadlines.duration(k), 0);
        }
        assertEquals(0, withDeadlines.backedUp(0) + withDeadlines.backedUp(2));
    }

    @Test
    void aHungWorkersTasksAreRunByTheOthersAndTheRoundEndsWithinTheBound() {
        // worker 0 hangs; worker 1 runs 1-unit tasks, idle worker 2 runs 5-unit tasks
        double[][] durations = {{1e9, 1e9}, {1, 1, 1, 1, 1}, {5, 5, 5}};
        TaskDeadlines deadlines = new Fixed(new double[] {2, 2, 10}, new double[] {1, 1, 5});
        RoundOutcome out = run(plan(4, 2, 2, 0), durations, deadlines);
        // at t = 2 both tasks of worker 0 are backed up on worker 1 (free at 2, done at 3 and 4)
        assertEquals(4, out.roundTime(), 0);
        assertEquals(2, out.backedUp(0));
        assertEquals(2, out.lostToBackup(0));
        assertEquals(4, out.stuckFor(0), 0, "stuck since 0 when the last backup won at 4");
        assertEquals(4, out.completed(1));
        assertEquals(0, out.completed(0));
        assertEquals(4, out.wastedTime(0), 0, "its copies lost at 3 and 4: worker time, not evidence");
        assertEquals(0, out.cancelledTime(0), 0);
        assertEquals(4, completed(out), "each of the 4 tasks counted once");
    }

    @Test
    void aBackupGoesWhereItFinishesSoonestEvenToAnIdleWorker() {
        // worker 1 is busy until 10; idle worker 2 finishes a copy at 2 + 3 = 5
        double[][] durations = {{1e9}, {10}, {3}};
        RoundOutcome out =
                run(plan(2, 1, 1, 0), durations, new Fixed(new double[] {2, 20, 6}, new double[] {1, 10, 3}));
        assertEquals(10, out.roundTime(), 0);
        assertEquals(1, out.completed(2));
        assertEquals(3, out.completedTime(2), 0);
    }

    @Test
    void anOriginalThatFinishesFirstWinsAndItsBackupIsCancelledNotCounted() {
        // worker 0's task takes 3 (deadline 2); its copy on idle worker 1 would take 5
        double[][] durations = {{3}, {5}};
        RoundOutcome out = run(plan(1, 1, 0), durations, new Fixed(new double[] {2, NEVER}, new double[] {1, 4}));
        assertEquals(3, out.roundTime(), 0);
        assertEquals(1, out.backedUp(0));
        assertEquals(0, out.lostToBackup(0));
        assertEquals(1, out.completed(0));
        assertEquals(0, out.completed(1));
        assertEquals(1, out.wastedTime(1), 0, "the copy ran from 2 to 3");
        assertEquals(0, out.cancelledTime(1), 0, "a lost backup copy is not censored evidence");
        assertEquals(4, out.busyTime(), 0);

        WorkerStats stats = new WorkerStats(2);
        out.foldInto(stats);
        assertEquals(1, stats.totalCount(), "the statistics count the finished task once");
        assertEquals(0, stats.censoredTime(1), 0);
    }

    @Test
    void aWorkerThatRecoversRunsItsQueueAndTheBatchHoldsEachTaskOnce() {
        // worker 0 is slow on its first task only (4 against a deadline of 2)
        double[][] durations = {{4, 0.5}, {1, 1, 1}};
        RoundOutcome out = run(plan(3, 2, 1), durations, new Fixed(new double[] {2, NEVER}, new double[] {1, 1}));
        // t=2: both tasks of worker 0 get a copy on worker 1 (free since 1). The first copy wins at 3
        // and worker 0's own copy is cancelled; worker 0 then runs its second task, 3 to 3.5, and
        // beats that task's copy (3 to 4 on worker 1), which is cancelled.
        assertEquals(3.5, out.roundTime(), 0);
        assertArrayEquals(new int[] {2, 1}, new int[] {out.backedUp(0), out.lostToBackup(0)});
        assertArrayEquals(new int[] {1, 2}, new int[] {out.completed(0), out.completed(1)});
        assertEquals(3, completed(out), "each task once in the batch");
        assertEquals(3, out.wastedTime(0), 0, "the slow copy, lost");
        assertEquals(0, out.cancelledTime(0), 0, "not folded as censored time (see BackupRoundExecutor)");
        assertEquals(0.5, out.wastedTime(1), 0, "the losing backup copy");
    }
}
