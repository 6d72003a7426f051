package io.ata.allocation;

import java.util.Arrays;

/**
 * What a policy asks of the fleet for one round.
 *
 * <p>{@code tasks(i)} tasks are queued on worker {@code i}, which runs them one after another;
 * the round ends as soon as {@code quota} results (the batch {@code B}) are in, and any work
 * still queued or in flight is cancelled. Three shapes cover every policy:
 * <ul>
 *   <li>exact: the queued tasks add up to the quota, so the round waits for all of them (ATA,
 *       FTA, UTA, proportional);</li>
 *   <li>hedged: more tasks than the quota are queued, the first {@code B} results win;</li>
 *   <li>greedy: every listed worker keeps computing until the quota is met (GTA).</li>
 * </ul>
 *
 * <p>A plan is owned and reused by the policy that made it: it is valid until the next call to
 * that policy's {@code plan}.
 */
public final class RoundPlan {
    /** Marker for a greedy worker's queue: it keeps starting tasks until the round ends. */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    private int[] tasks;
    private int[] support = new int[16];
    private int supportSize;
    private int quota;
    private long round;

    public RoundPlan(int workers) {
        tasks = new int[Math.max(4, workers)];
    }

    /** Clears the plan for a fleet of {@code workers} workers. */
    public void reset(long round, int quota, int workers) {
        for (int k = 0; k < supportSize; k++) {
            tasks[support[k]] = 0;
        }
        supportSize = 0;
        if (tasks.length < workers) {
            tasks = new int[Math.max(workers, tasks.length * 2)];
        }
        this.round = round;
        this.quota = quota;
    }

    /**
     * Makes this plan a copy of {@code other}, so a driver can keep a plan beyond the policy's
     * next call to {@code plan} (a round planned one round ahead, as pipelined allocation does).
     */
    public void copyFrom(RoundPlan other) {
        reset(other.round, other.quota, other.tasks.length);
        for (int k = 0; k < other.supportSize; k++) {
            int w = other.support[k];
            add(w, other.tasks[w]);
        }
    }

    /** Queues {@code count} more tasks on {@code worker}; {@link #UNBOUNDED} makes it greedy. */
    public void add(int worker, int count) {
        if (count <= 0) {
            return;
        }
        if (tasks[worker] == 0) {
            if (supportSize == support.length) {
                support = Arrays.copyOf(support, supportSize * 2);
            }
            support[supportSize++] = worker;
        }
        tasks[worker] =
                count == UNBOUNDED || tasks[worker] == UNBOUNDED ? UNBOUNDED : Math.addExact(tasks[worker], count);
    }

    public int tasks(int worker) {
        return worker < tasks.length ? tasks[worker] : 0;
    }

    /** Number of workers with at least one task. */
    public int supportSize() {
        return supportSize;
    }

    /** The {@code k}-th worker with at least one task, in the order they were added. */
    public int supportWorker(int k) {
        return support[k];
    }

    public int quota() {
        return quota;
    }

    public long round() {
        return round;
    }

    /** Total tasks queued, or {@link Long#MAX_VALUE} if some worker is greedy. */
    public long queuedTasks() {
        long total = 0;
        for (int k = 0; k < supportSize; k++) {
            int t = tasks[support[k]];
            if (t == UNBOUNDED) {
                return Long.MAX_VALUE;
            }
            total += t;
        }
        return total;
    }

    /** True when the round waits for every queued task (queued tasks equal the quota). */
    public boolean isExact() {
        return queuedTasks() == quota;
    }

    /** A dense copy of the task counts over {@code workers} workers (for tests and logs). */
    public int[] toArray(int workers) {
        return Arrays.copyOf(tasks, workers);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("RoundPlan{round=")
                .append(round)
                .append(", quota=")
                .append(quota);
        for (int k = 0; k < supportSize; k++) {
            int w = support[k];
            b.append(k == 0 ? ", tasks={" : ", ")
                    .append(w)
                    .append('=')
                    .append(tasks[w] == UNBOUNDED ? "inf" : Integer.toString(tasks[w]));
        }
        return b.append(supportSize == 0 ? "}" : "}}").toString();
    }
}
