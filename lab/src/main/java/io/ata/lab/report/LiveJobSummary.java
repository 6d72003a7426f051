package io.ata.lab.report;

/**
 * One training job of a live run ({@code ata demo}), as its reports show it. Times are wall-clock
 * seconds or milliseconds of the agents' compute time.
 *
 * @param policy             the allocation policy the job ran with
 * @param job                the job's name on the cluster
 * @param rounds             rounds completed
 * @param wallSeconds        from starting the trainer to its last round's close
 * @param meanRoundMs        the mean round time the trainer measured (NaN if no round closed)
 * @param steadyMeanRoundMs  the mean of rounds {@link SteadyRoundTime#firstRound} on (NaN if none)
 * @param acceptedWorkerMs   compute time of the results the trainer used
 * @param wastedWorkerMs     compute time of the tasks whose results it did not use (late, cancelled)
 * @param tasksRun           every task the agents ran for the job
 * @param tasksAccepted      tasks whose results were used
 * @param tasksLate          tasks that finished after their round had closed
 * @param tasksCancelled     tasks stopped before they finished
 * @param finalSuboptimality {@code f(x) - f(x*)} of the last model version
 * @param timingsFile        the file name of the job's timing log, beside the summary
 */
public record LiveJobSummary(
        String policy,
        String job,
        long rounds,
        double wallSeconds,
        double meanRoundMs,
        double steadyMeanRoundMs,
        double acceptedWorkerMs,
        double wastedWorkerMs,
        long tasksRun,
        long tasksAccepted,
        long tasksLate,
        long tasksCancelled,
        double finalSuboptimality,
        String timingsFile) {

    /** The first round {@link #steadyMeanRoundMs} counts. */
    public long steadyFromRound() {
        return SteadyRoundTime.firstRound(rounds);
    }

    /** All the compute time the job cost the agents. */
    public double totalWorkerMs() {
        return acceptedWorkerMs + wastedWorkerMs;
    }
}
