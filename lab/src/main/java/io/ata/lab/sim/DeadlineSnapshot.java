package io.ata.lab.sim;

import io.ata.allocation.TaskDeadlines;
import io.ata.allocation.policy.AllocationPolicy;

/**
 * A policy's deadlines frozen at the moment it planned a round. A policy's own
 * {@link TaskDeadlines} follow its statistics as they change; a round planned one round ahead runs
 * under the deadlines of its plan, as the live broker writes them into the round's assignments.
 * Where a copy goes is decided when a task is overdue, from the statistics of that moment, as the
 * live broker decides it on an OVERDUE event: expected times are read from the policy.
 */
final class DeadlineSnapshot implements TaskDeadlines {
    private final double[] deadline;
    private final TaskDeadlines live;

    private DeadlineSnapshot(double[] deadline, TaskDeadlines live) {
        this.deadline = deadline;
        this.live = live;
    }

    /** The policy's deadlines for {@code workers} workers now, or null if it sends no backups. */
    static TaskDeadlines of(AllocationPolicy policy, int workers) {
        TaskDeadlines live = policy.deadlines().orElse(null);
        if (live == null) {
            return null;
        }
        double[] d = new double[workers];
        for (int w = 0; w < workers; w++) {
            d[w] = live.deadline(w);
        }
        return new DeadlineSnapshot(d, live);
    }

    @Override
    public double deadline(int worker) {
        return deadline[worker];
    }

    @Override
    public double expectedTime(int worker) {
        return live.expectedTime(worker);
    }
}
