package io.ata.lab.sim;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.TaskDeadlines;
import java.util.ArrayDeque;
import java.util.PriorityQueue;

/**
 * Runs one round offline under {@link TaskDeadlines}: as {@link RoundExecutor} (each worker runs
 * its queue back to back from time 0, the round ends at the {@code quota}-th distinct result), but
 * a task still running {@code deadline(i)} after it started on its worker {@code i} gets a backup
 * copy, and so does every task still queued behind it. Each copy goes to the end of the queue of
 * the eligible worker expected to finish it soonest ({@code max(now, queue end) + expected time}).
 *
 * <p>The first copy of a task to finish is its result; a copy still queued elsewhere is dropped, a
 * copy running elsewhere is cancelled and its elapsed time counted as wasted worker time, not
 * folded into the statistics as censored time. Folding the losing original's elapsed time (the
 * total-time-on-test estimator) was tried: censoring here is informative (only tasks that went
 * overdue are cut), and it biased the paper's shifted-exponential workers' means up by 2-9% and
 * cost 9% of round time on the stationary linear fleet. Dropping it biases them down by 2-8% (the
 * longest tasks go unobserved), which the backups themselves make up for. Tasks still running
 * when the round ends are censored as without backups.
 *
 * <p>A task is backed up at most once, and only its first result counts, so nothing enters the
 * batch twice. Probe tasks (beyond the quota) are run like any other; the round does not wait for
 * them.
 *
 * <p>A round in which no task runs past its deadline is, result for result, the round
 * {@link RoundExecutor} runs; it takes a fast path with no event queue.
 */
final class BackupRoundExecutor {
    private static final double UNKNOWN = Double.NaN;

    // per task
    private int[] owner = new int[16];
    private double[] duration = new double[16];
    private int[] backupWorker = new int[16];
    private boolean[] done = new boolean[16];
    // per worker
    private ArrayDeque<Integer>[] queue = newQueues(16);
    private int[] running = new int[16];
    private double[] start = new double[16];
    private int[] epoch = new int[16];
    /** The deadline of the worker's own tasks this round (the statistics do not change within it). */
    private double[] limit = new double[16];
    /**
     * When the task that went overdue on the worker started, or -1: the worker is stuck from then
     * until it completes a task (being cancelled does not unstick it).
     */
    private double[] stuckSince = new double[16];

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long sequence;

    /** A task's completion or deadline on a worker; stale once the worker's epoch moved on. */
    private record Event(double time, boolean deadline, long sequence, int worker, int epoch)
            implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Double.compare(time, o.time);
            if (c != 0) {
                return c;
            }
            if (deadline != o.deadline) {
                return deadline ? 1 : -1; // a result at the deadline is in time
            }
            return Long.compare(sequence, o.sequence);
        }
    }

    void run(RoundPlan plan, DurationSource durations, TaskDeadlines deadlines, RoundOutcome outcome, int fleetSize) {
        int tasks = (int) plan.queuedTasks();
        ensureCapacity(tasks, fleetSize);
        int t = 0;
        boolean overdue = false;
        for (int k = 0; k < plan.supportSize(); k++) {
            int w = plan.supportWorker(k);
            limit[w] = deadlines.deadline(w);
            for (int j = 0; j < plan.tasks(w); j++) {
                owner[t] = w;
                duration[t] = durations.next(w);
                overdue |= duration[t] > limit[w];
                t++;
            }
        }
        if (!overdue && plan.isExact()) {
            runInTime(plan, outcome, tasks);
        } else {
            runWithBackups(plan, durations, deadlines, outcome, tasks, fleetSize);
        }
    }

    /** Nothing overdue, every task waited for: the slowest worker's total is the round time. */
    private void runInTime(RoundPlan plan, RoundOutcome outcome, int tasks) {
        double roundTime = 0;
        double total = 0;
        for (int t = 0; t < tasks; t++) {
            outcome.addCompleted(owner[t], duration[t], true);
            total += duration[t];
            if (t + 1 == tasks || owner[t + 1] != owner[t]) {
                roundTime = Math.max(roundTime, total);
                total = 0;
            }
        }
        outcome.setRoundTime(roundTime);
    }

    private void runWithBackups(
            RoundPlan plan,
            DurationSource durations,
            TaskDeadlines deadlines,
            RoundOutcome outcome,
            int tasks,
            int fleetSize) {
        events.clear();
        for (int w = 0; w < fleetSize; w++) {
            queue[w].clear();
            running[w] = -1;
            stuckSince[w] = -1;
        }
        for (int t = 0; t < tasks; t++) {
            backupWorker[t] = -1;
            done[t] = false;
            queue[owner[t]].add(t);
        }
        for (int k = 0; k < plan.supportSize(); k++) {
            startNext(plan.supportWorker(k), 0, durations);
        }
        int results = 0;
        double now = 0;
        while (results < plan.quota()) {
            Event e = events.poll();
            if (e == null) {
                throw new IllegalStateException(
                        "plan for round " + plan.round() + " queues fewer tasks than its quota");
            }
            int w = e.worker();
            if (e.epoch() != epoch[w]) {
                continue; // the task it was about finished or was cancelled
            }
            now = e.time();
            int t = running[w];
            if (e.deadline()) {
                if (stuckSince[w] < 0) {
                    stuckSince[w] = start[w];
                }
                backUp(w, now, durations, deadlines, outcome, fleetSize);
                continue;
            }
            done[t] = true;
            results++;
            outcome.addCompleted(w, now - start[w], true);
            stuckSince[w] = -1;
            int other = w == owner[t] ? backupWorker[t] : owner[t];
            if (w != owner[t] && stuckSince[owner[t]] >= 0) {
                // its worker has finished nothing since a task of it went overdue: the evidence
                // probation acts on. A copy that merely beat a healthy worker's queue says nothing.
                outcome.addLostToBackup(owner[t], now - stuckSince[owner[t]]);
            }
            if (other >= 0 && running[other] == t) {
                outcome.addWasted(other, now - start[other]);
                startNext(other, now, durations);
            }
            startNext(w, now, durations);
        }
        for (int w = 0; w < fleetSize; w++) {
            int t = running[w];
            if (t >= 0 && owner[t] == w) {
                outcome.addCancelled(w, now - start[w]);
            } else if (t >= 0) {
                outcome.addWasted(w, now - start[w]);
            }
        }
        outcome.setRoundTime(now);
    }

    /** Worker {@code w}'s running task is overdue: it and the tasks queued behind it get a copy. */
    private void backUp(
            int w, double now, DurationSource durations, TaskDeadlines deadlines, RoundOutcome outcome, int fleetSize) {
        backUpTask(running[w], w, now, durations, deadlines, outcome, fleetSize);
        for (int t : queue[w]) {
            if (!done[t]) {
                backUpTask(t, w, now, durations, deadlines, outcome, fleetSize);
            }
        }
    }

    private void backUpTask(
            int t,
            int w,
            double now,
            DurationSource durations,
            TaskDeadlines deadlines,
            RoundOutcome outcome,
            int fleetSize) {
        if (backupWorker[t] >= 0 || owner[t] != w) {
            return; // one backup per task; a backup copy is not itself backed up
        }
        int best = -1;
        double bestFinish = Double.POSITIVE_INFINITY;
        for (int b = 0; b < fleetSize; b++) {
            double expected = b == w ? UNKNOWN : deadlines.expectedTime(b);
            if (!(expected >= 0)) {
                continue;
            }
            double finish = queueEnd(b, now, expected) + expected;
            if (finish < bestFinish) {
                bestFinish = finish;
                best = b;
            }
        }
        if (best < 0) {
            return; // nobody to take it: the round waits for the original
        }
        backupWorker[t] = best;
        outcome.addBackedUp(w);
        queue[best].add(t);
        if (running[best] < 0) {
            startNext(best, now, durations);
        }
    }

    /** When worker {@code b} is expected to be free: its running task and its undone queue. */
    private double queueEnd(int b, double now, double expected) {
        double end = running[b] >= 0 ? Math.max(now, start[b] + expected) : now;
        for (int t : queue[b]) {
            if (!done[t]) {
                end += expected;
            }
        }
        return end;
    }

    /** Starts worker {@code w}'s next task that is still needed, if any. */
    private void startNext(int w, double now, DurationSource durations) {
        epoch[w]++;
        running[w] = -1;
        Integer next;
        while ((next = queue[w].poll()) != null) {
            int t = next;
            if (done[t]) {
                continue;
            }
            running[w] = t;
            start[w] = now;
            double d = owner[t] == w ? duration[t] : durations.next(w);
            events.add(new Event(now + d, false, sequence++, w, epoch[w]));
            // an original with a copy elsewhere still gets its deadline: going overdue marks its
            // worker stuck, which decides whether that copy's win counts against the worker; a copy
            // has none
            if (owner[t] == w && limit[w] < Double.POSITIVE_INFINITY) {
                events.add(new Event(now + limit[w], true, sequence++, w, epoch[w]));
            }
            return;
        }
    }

    private void ensureCapacity(int tasks, int workers) {
        if (owner.length < tasks) {
            int capacity = Math.max(tasks, 2 * owner.length);
            owner = new int[capacity];
            duration = new double[capacity];
            backupWorker = new int[capacity];
            done = new boolean[capacity];
        }
        if (running.length < workers) {
            int capacity = Math.max(workers, 2 * running.length);
            queue = newQueues(capacity);
            running = new int[capacity];
            start = new double[capacity];
            epoch = new int[capacity];
            limit = new double[capacity];
            stuckSince = new double[capacity];
        }
    }

    @SuppressWarnings("unchecked")
    private static ArrayDeque<Integer>[] newQueues(int n) {
        ArrayDeque<Integer>[] queues = new ArrayDeque[n];
        for (int i = 0; i < n; i++) {
            queues[i] = new ArrayDeque<>();
        }
        return queues;
    }
}
