package io.ata.cli;

import io.ata.report.LiveJobSummary;
import io.ata.report.LiveResultTable;
import io.ata.report.LiveSummaryCsv;
import io.ata.report.Reports;
import io.ata.report.RunInfo;
import io.ata.timemodel.TaskTimeDistribution;
import io.ata.timinglog.TimingRecord;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * What {@code ata demo} tells the user: a line for each part as it starts and each job as it ends,
 * then {@code summary.csv} and a table of the jobs, and where the outputs are.
 */
final class DemoReport {
    private final DemoPlan plan;
    private final PrintWriter out;
    private final PrintWriter err;

    DemoReport(DemoPlan plan, PrintWriter out, PrintWriter err) {
        this.plan = plan;
        this.out = out;
        this.err = err;
    }

    /** @param model the agents' task time distributions, before the time scale */
    void started(TaskTimeDistribution[] model) {
        out.printf(
                Locale.ROOT,
                "ata demo: %d agents (%s time model x %s: mean task time %s to %s ms), batch %d, "
                        + "%d rounds per policy: %s%n",
                plan.agents(),
                plan.timeModel(),
                RunInfo.number(plan.timeScale()),
                RunInfo.number(model[0].mean() * plan.timeScale()),
                RunInfo.number(model[plan.agents() - 1].mean() * plan.timeScale()),
                plan.batch(),
                plan.rounds(),
                String.join(", ", plan.policies()));
        out.flush();
    }

    void existingKafka(String bootstrapServers, String topicPrefix) {
        out.printf(
                Locale.ROOT, "Kafka:           %s, topics %s* (created if missing)%n", bootstrapServers, topicPrefix);
        out.flush();
    }

    void embeddedKafka(String bootstrapServers, double startSeconds, String topicPrefix) {
        out.printf(
                Locale.ROOT,
                "Kafka:           embedded KRaft broker at %s (started in %.1f s), topics %s*%n",
                bootstrapServers,
                startSeconds,
                topicPrefix);
        out.flush();
    }

    void registry(String url) {
        out.println("Schema Registry: " + url);
    }

    void embeddedRegistry(String url) {
        out.println("Schema Registry: " + url + "  (embedded; e.g. curl " + url + "/subjects)");
    }

    /** Where the broker answers queries, with examples for the first job. */
    void brokerQueries(String httpUrl) {
        out.println("Broker queries:  " + httpUrl + "  (try: curl " + httpUrl + "/jobs, " + httpUrl + "/workers, "
                + httpUrl + "/jobs/" + plan.jobName(plan.policies().get(0)) + "/stats)");
        out.flush();
    }

    void fleetJoined(String group, double seconds) {
        out.printf(
                Locale.ROOT,
                "Fleet:           %d agents joined the group %s in %.1f s%n%n",
                plan.agents(),
                group,
                seconds);
        out.flush();
    }

    void jobDone(LiveDemo.JobOutcome o) {
        out.printf(
                Locale.ROOT,
                "%s: %d rounds in %.1f s, mean round %.1f ms, worker time %.1f s, wasted %.1f s%n",
                o.policy(),
                o.rounds(),
                o.wallSeconds(),
                o.meanRoundMs(),
                o.totalWorkerMs() / 1e3,
                o.wastedWorkerMs() / 1e3);
        out.flush();
    }

    void stopping() {
        err.println("ata demo: stopping (interrupted)...");
        err.flush();
    }

    /**
     * Writes {@code summary.csv} and prints the table of the jobs that finished (if any), then
     * how the demo ended.
     */
    void finished(List<LiveDemo.JobOutcome> outcomes, boolean interrupted, double wallSeconds) {
        if (!outcomes.isEmpty()) {
            List<LiveJobSummary> jobs =
                    outcomes.stream().map(DemoReport::summaryOf).toList();
            LiveSummaryCsv.write(plan.out().resolve(Reports.SUMMARY), plan.agents(), plan.batch(), jobs);
            out.println();
            out.print(LiveResultTable.format(jobs));
            out.println();
            out.println("worker time: compute time of every task the agents ran for the job (late ones included); "
                    + "wasted: of results the trainer did not use");
            out.println("outputs in " + plan.out().toAbsolutePath().normalize() + ": " + Reports.SUMMARY + ", "
                    + String.join(
                            ", ", jobs.stream().map(LiveJobSummary::timingsFile).toList())
                    + " (replay one with: ata replay --log "
                    + plan.out().resolve(jobs.get(0).timingsFile()) + ")");
        }
        out.printf(Locale.ROOT, "%s; demo wall time %.1f s%n", interrupted ? "interrupted" : "done", wallSeconds);
        out.flush();
    }

    private static LiveJobSummary summaryOf(LiveDemo.JobOutcome o) {
        return new LiveJobSummary(
                o.policy(),
                o.job(),
                o.rounds(),
                o.wallSeconds(),
                o.meanRoundMs(),
                o.acceptedWorkerMs(),
                o.wastedWorkerMs(),
                o.timings().records().size(),
                o.timings().count(TimingRecord.Status.COMPLETED),
                o.timings().count(TimingRecord.Status.LATE),
                o.timings().count(TimingRecord.Status.CANCELLED),
                o.finalObjective(),
                DemoPlan.timingsFileName(o.job()));
    }
}
