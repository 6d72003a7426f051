package io.ata.broker;

/**
 * What a job knows of one of its workers, as the {@code /jobs/{job}/stats} query and the per-worker
 * gauges ({@link WorkerGauges}) show it. Times in milliseconds; NaN where there is no value yet.
 *
 * @param worker         the worker id
 * @param active         live and owning a task partition at the job's last membership check
 * @param tasks          completed tasks observed (folded from closed rounds)
 * @param meanMs         mean task time (cancelled work counted as time without a result); NaN before the first task
 * @param sdMs           standard deviation of the completed task times; NaN below two tasks
 * @param lowerBoundMs   the lower confidence bound on the mean the job's policy would plan the next
 *                       round with (ATA's score {@code s_i}); NaN if the policy keeps no such bound
 *                       or the worker has no task yet
 * @param tasksThisRound tasks the worker was given in the last opened round
 */
public record WorkerSummary(
        String worker,
        boolean active,
        long tasks,
        double meanMs,
        double sdMs,
        double lowerBoundMs,
        int tasksThisRound) {}
