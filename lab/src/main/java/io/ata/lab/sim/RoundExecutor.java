package io.ata.lab.sim;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.TaskDeadlines;

/**
 * Runs one round of a {@link RoundPlan} offline against a {@link DurationSource}: each worker
 * runs its queued tasks back to back, all workers in parallel from time 0, and the round ends at
 * the arrival of the {@code quota}-th result. Work still in flight then is cancelled and its
 * elapsed time is charged as busy time; tasks not yet started cost nothing.
 *
 * <p>Exact plans (queued tasks = quota) take a fast path: the round time is the slowest worker's
 * total. Hedged and greedy plans are simulated event by event with a small binary heap. Under
 * greedy collection every worker is busy until the round ends, so the busy time is
 * {@code n x round time}, as the spec charges GTA.
 *
 * <p>Under a policy's {@link TaskDeadlines}, overdue tasks get backup copies
 * ({@link BackupRoundExecutor}).
 */
public final class RoundExecutor {
    private double[] heapTime = new double[16];
    private int[] heapWorker = new int[16];
    private double[] taskStart = new double[16];
    private int[] remaining = new int[16];
    private int heapSize;

    private BackupRoundExecutor withBackups;

    public void run(RoundPlan plan, DurationSource durations, RoundOutcome outcome, int fleetSize) {
        run(plan, durations, null, outcome, fleetSize);
    }

    /** As above; with {@code deadlines} (null: none), overdue tasks of bounded queues get backups. */
    public void run(
            RoundPlan plan, DurationSource durations, TaskDeadlines deadlines, RoundOutcome outcome, int fleetSize) {
        outcome.reset(plan.round(), fleetSize);
        if (deadlines != null && plan.queuedTasks() != Long.MAX_VALUE) {
            if (withBackups == null) {
                withBackups = new BackupRoundExecutor();
            }
            withBackups.run(plan, durations, deadlines, outcome, fleetSize);
        } else if (plan.isExact()) {
            runExact(plan, durations, outcome);
        } else {
            runFirstQuota(plan, durations, outcome, fleetSize);
        }
    }

    private static void runExact(RoundPlan plan, DurationSource durations, RoundOutcome outcome) {
        double roundTime = 0;
        for (int k = 0; k < plan.supportSize(); k++) {
            int w = plan.supportWorker(k);
            int tasks = plan.tasks(w);
            double total = 0;
            for (int t = 0; t < tasks; t++) {
                double d = durations.next(w);
                outcome.addCompleted(w, d, true);
                total += d;
            }
            roundTime = Math.max(roundTime, total);
        }
        outcome.setRoundTime(roundTime);
    }

    private void runFirstQuota(RoundPlan plan, DurationSource durations, RoundOutcome outcome, int fleetSize) {
        if (remaining.length < fleetSize) {
            remaining = new int[Math.max(fleetSize, remaining.length * 2)];
            taskStart = new double[remaining.length];
        }
        heapSize = 0;
        for (int k = 0; k < plan.supportSize(); k++) {
            int w = plan.supportWorker(k);
            int tasks = plan.tasks(w);
            remaining[w] = tasks == RoundPlan.UNBOUNDED ? Integer.MAX_VALUE : tasks - 1;
            taskStart[w] = 0;
            push(durations.next(w), w);
        }
        int accepted = 0;
        double now = 0;
        while (accepted < plan.quota()) {
            if (heapSize == 0) {
                throw new IllegalStateException(
                        "plan for round " + plan.round() + " queues fewer tasks than its quota");
            }
            now = heapTime[0];
            int w = heapWorker[0];
            pop();
            outcome.addCompleted(w, now - taskStart[w], true);
            accepted++;
            if (remaining[w] > 0) {
                if (remaining[w] != Integer.MAX_VALUE) {
                    remaining[w]--;
                }
                taskStart[w] = now;
                push(now + durations.next(w), w);
            }
        }
        // Results arriving at the very same instant are finished work, just not needed.
        while (heapSize > 0 && heapTime[0] <= now) {
            int w = heapWorker[0];
            pop();
            outcome.addCompleted(w, now - taskStart[w], false);
        }
        for (int h = 0; h < heapSize; h++) {
            int w = heapWorker[h];
            outcome.addCancelled(w, now - taskStart[w]);
        }
        outcome.setRoundTime(now);
    }

    private void push(double time, int worker) {
        if (heapSize == heapTime.length) {
            heapTime = java.util.Arrays.copyOf(heapTime, heapSize * 2);
            heapWorker = java.util.Arrays.copyOf(heapWorker, heapSize * 2);
        }
        int i = heapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heapTime[parent] <= time) {
                break;
            }
            heapTime[i] = heapTime[parent];
            heapWorker[i] = heapWorker[parent];
            i = parent;
        }
        heapTime[i] = time;
        heapWorker[i] = worker;
    }

    private void pop() {
        double time = heapTime[--heapSize];
        int worker = heapWorker[heapSize];
        int i = 0;
        int half = heapSize >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            if (child + 1 < heapSize && heapTime[child + 1] < heapTime[child]) {
                child++;
            }
            if (time <= heapTime[child]) {
                break;
            }
            heapTime[i] = heapTime[child];
            heapWorker[i] = heapWorker[child];
            i = child;
        }
        if (heapSize > 0) {
            heapTime[i] = time;
            heapWorker[i] = worker;
        }
    }
}
