package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.TaskDeadlines;
import io.ata.allocation.WorkerStats;

/**
 * Backup tasks for a learning policy: the {@link TaskDeadlines} its rounds run under, from each
 * worker's fitted task time ({@link DeadlineRule}), and the {@link Probation} of workers whose
 * tasks needed them. Workers on probation have no deadline (their probes are extra work the round
 * does not wait for) and take no backups.
 */
final class BackupTasks implements TaskDeadlines {
    private final WorkerStats stats;
    private final DeadlineRule rule;
    private final Probation probation = new Probation();

    BackupTasks(WorkerStats stats, double deadlineFloor) {
        this.stats = stats;
        this.rule = new DeadlineRule(deadlineFloor);
    }

    @Override
    public double deadline(int worker) {
        return probation.contains(worker) ? Double.POSITIVE_INFINITY : rule.deadline(stats, worker);
    }

    @Override
    public double expectedTime(int worker) {
        if (!stats.isActive(worker) || probation.contains(worker) || stats.count(worker) == 0) {
            return Double.NaN;
        }
        return stats.mean(worker);
    }

    /** True if {@code worker} is on probation: it gets no share of the batch, only probes. */
    boolean excludes(int worker) {
        return probation.contains(worker);
    }

    /** Workers on probation. */
    int excludedCount() {
        return probation.size();
    }

    void addProbes(RoundPlan plan, long round) {
        probation.addProbes(plan, round, stats);
    }

    /** Updates the probation from the round just run; call after its outcome was folded. */
    void observe(RoundOutcome outcome) {
        probation.observe(outcome, w -> rule.deadline(stats, w), (w, elapsed) -> rule.implausible(stats, w, elapsed));
    }

    /** The probation of workers {@code 0..workers-1}: all that backups learn beyond the statistics. */
    Probation.State snapshot(int workers) {
        return probation.snapshot(workers);
    }

    /** Worker {@code w}'s slice of the probation, read in place. */
    Probation.State slice(int w) {
        return probation.slice(w);
    }

    void restore(Probation.State state) {
        probation.restore(state);
    }

    String describe() {
        return rule.floor() > 0 ? " backups(floor=" + rule.floor() + ")" : " backups";
    }
}
