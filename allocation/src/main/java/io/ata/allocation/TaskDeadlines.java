package io.ata.allocation;

/**
 * What whoever runs a round needs to issue backup tasks: when a task has run implausibly long, and
 * where a copy of it would finish soonest. A policy that learns its workers' task times hands one
 * out with its plan; the simulator's executor and the live broker apply it the same way:
 *
 * <ul>
 *   <li>a task of worker {@code i} still running {@link #deadline(int) deadline(i)} after it
 *       started is overdue: it and the tasks still queued behind it get one backup copy each, on
 *       the eligible worker expected to finish that copy soonest;</li>
 *   <li>the first copy of a task to finish is its result; the other copy is cancelled (its elapsed
 *       time is worker time spent, not an observation of its worker's speed), so a task enters the
 *       round's batch, and the statistics, at most once.</li>
 * </ul>
 */
public interface TaskDeadlines {

    /** Time after a task of {@code worker} started beyond which it is overdue; infinite for never. */
    double deadline(int worker);

    /**
     * The expected time of one task of {@code worker}, to place backups where they finish
     * soonest; NaN if the worker must not take backups (unknown, away, or itself under suspicion).
     */
    double expectedTime(int worker);
}
