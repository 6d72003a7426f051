package io.ata.bench.demo;

import io.ata.lab.report.AccuracyChart;
import io.ata.lab.report.EvalCsv;
import io.ata.lab.report.EvaluationPoint;
import io.ata.lab.report.LearningCurve;
import io.ata.lab.report.LiveJobSummary;
import io.ata.lab.report.LiveResultTable;
import io.ata.lab.report.LiveRounds;
import io.ata.lab.report.LiveSummaryCsv;
import io.ata.lab.report.Reports;
import io.ata.lab.report.RoundCharts;
import io.ata.lab.report.RunInfo;
import io.ata.lab.report.SteadyRoundTime;
import io.ata.lab.report.WorkerTimeline;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.schemas.Evaluation;
import io.ata.workloads.time.TaskTimeDistribution;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code ata demo} tells the user: a line for each part as it starts and each job as it ends,
 * then {@code summary.csv}, the round charts ({@link RoundCharts}: round and worker time per
 * policy, the allocation picture) and a table of the jobs, and where the outputs are. A run on a network
 * adds each job's learning curve: {@code eval.csv}, {@code accuracy.png}, and the accuracy figures
 * in the summary and the table.
 */
public final class DemoReport {
    private final DemoPlan plan;
    private final PrintWriter out;
    private final PrintWriter err;

    public DemoReport(DemoPlan plan, PrintWriter out, PrintWriter err) {
        this.plan = plan;
        this.out = out;
        this.err = err;
    }

    /** @param model the agents' task time distributions, before the time scale */
    public void started(TaskTimeDistribution[] model) {
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
        if (plan.trainsNetwork()) {
            DemoNetwork n = plan.network();
            out.printf(
                    Locale.ROOT,
                    "Training:        %s on %s (%d training, %d test samples), scored every %d rounds; "
                            + "target test accuracy %s%n",
                    n.model().spec(),
                    n.dataName(),
                    n.model().data().train().size(),
                    n.model().data().test().size(),
                    n.evalEvery(),
                    percent(n.targetAccuracy()));
        } else {
            out.println("Training:        the paper's quadratic problem (--workload quadratic)");
        }
        out.flush();
    }

    /**
     * The demo's default data set was not found, so it trains on the synthetic one: say so, and why.
     *
     * @param why where it looked and how to install it
     */
    public void fellBackToSynthetic(String why) {
        out.println("Data:            " + why + ".");
        out.println("                 So this demo trains on the synthetic data set (--data synthetic) instead.");
        out.flush();
    }

    public void existingKafka(String bootstrapServers, String topicPrefix) {
        out.printf(
                Locale.ROOT, "Kafka:           %s, topics %s* (created if missing)%n", bootstrapServers, topicPrefix);
        out.flush();
    }

    public void embeddedKafka(String bootstrapServers, double startSeconds, String topicPrefix) {
        out.printf(
                Locale.ROOT,
                "Kafka:           embedded KRaft broker at %s (started in %.1f s), topics %s*%n",
                bootstrapServers,
                startSeconds,
                topicPrefix);
        out.flush();
    }

    public void registry(String url) {
        out.println("Schema Registry: " + url);
    }

    public void embeddedRegistry(String url) {
        out.println("Schema Registry: " + url + "  (embedded; e.g. curl " + url + "/subjects)");
    }

    /** Where the broker answers queries, with examples for the first job. */
    public void brokerQueries(String httpUrl) {
        out.println("Broker queries:  " + httpUrl + "  (try: curl " + httpUrl + "/jobs, " + httpUrl + "/workers, "
                + httpUrl + "/jobs/" + plan.jobName(plan.policies().get(0)) + "/stats)");
        out.flush();
    }

    public void fleetJoined(String group, double seconds) {
        out.printf(
                Locale.ROOT,
                "Fleet:           %d agents joined the group %s in %.1f s%n%n",
                plan.agents(),
                group,
                seconds);
        out.flush();
    }

    public void jobDone(LiveDemo.JobOutcome o) {
        out.printf(
                Locale.ROOT,
                "%s: %d rounds in %.1f s, mean round %.1f ms, worker time %.1f s, wasted %.1f s",
                o.policy(),
                o.rounds(),
                o.wallSeconds(),
                o.meanRoundMs(),
                o.totalWorkerMs() / 1e3,
                o.wastedWorkerMs() / 1e3);
        if (plan.trainsNetwork()) {
            out.print(", test accuracy " + percent(curveOf(o).finalAccuracy()));
        }
        out.println();
        out.flush();
    }

    public void stopping() {
        err.println("ata demo: stopping (interrupted)...");
        err.flush();
    }

    /**
     * Writes {@code summary.csv} (and for a network {@code eval.csv} and {@code accuracy.png}) and
     * prints the table of the jobs that finished (if any), then how the demo ended.
     */
    public void finished(List<LiveDemo.JobOutcome> outcomes, boolean interrupted, double wallSeconds) {
        if (!outcomes.isEmpty()) {
            List<LiveJobSummary> jobs = outcomes.stream().map(this::summaryOf).toList();
            List<String> files = new ArrayList<>(List.of(Reports.SUMMARY));
            out.println();
            if (plan.trainsNetwork()) {
                double target = plan.network().targetAccuracy();
                double hold = holdAccuracy(target);
                List<LearningCurve> curves =
                        outcomes.stream().map(DemoReport::curveOf).toList();
                LiveSummaryCsv.write(
                        plan.out().resolve(Reports.SUMMARY), plan.agents(), plan.batch(), jobs, curves, hold, target);
                EvalCsv.write(plan.out().resolve(EvalCsv.FILE), curves);
                AccuracyChart.write(
                        plan.out().resolve(AccuracyChart.FILE),
                        curves,
                        List.of(
                                new AccuracyChart.Level(target, "target " + level(target) + ": first reached"),
                                new AccuracyChart.Level(hold, level(hold) + ": held for good")),
                        chartHeader());
                files.addAll(List.of(EvalCsv.FILE, AccuracyChart.FILE));
                out.print(LiveResultTable.format(jobs, curves, hold, target));
                out.println();
                out.println("mean round " + jobs.get(0).steadyFromRound() + "-" + plan.rounds()
                        + ": rounds after the first fifth, in which a learning policy still explores");
                out.println("time to hold " + level(hold) + ": to the first evaluation from which on every one was at "
                        + "or above it; time to first " + level(target) + ": to the first evaluation at or above "
                        + level(target) + ", which one evaluation's noise decides where the curves level off near it");
                printComparison(jobs, curves, hold);
            } else {
                LiveSummaryCsv.write(plan.out().resolve(Reports.SUMMARY), plan.agents(), plan.batch(), jobs);
                out.print(LiveResultTable.format(jobs));
                printComparison(jobs, null, Double.NaN);
            }
            List<LiveRounds> rounds = outcomes.stream()
                    .map(o -> new LiveRounds(
                            o.policy(), o.roundTimes(), o.timings().records()))
                    .toList();
            RoundCharts.writeRounds(plan.out().resolve(RoundCharts.ROUNDS_FILE), rounds, chartHeader());
            RoundCharts.writeAllocation(plan.out().resolve(RoundCharts.ALLOCATION_FILE), rounds, chartHeader());
            files.addAll(List.of(RoundCharts.ROUNDS_FILE, RoundCharts.ALLOCATION_FILE));
            out.println("worker time: compute time of every task the agents ran for the job (late ones included); "
                    + "wasted: of results the trainer did not use");
            files.addAll(jobs.stream().map(LiveJobSummary::timingsFile).toList());
            out.println("outputs in " + plan.out().toAbsolutePath().normalize() + ": " + String.join(", ", files)
                    + " (replay one with: ata replay --log "
                    + plan.out().resolve(jobs.get(0).timingsFile()) + ")");
        }
        out.printf(Locale.ROOT, "%s; demo wall time %.1f s%n", interrupted ? "interrupted" : "done", wallSeconds);
        out.flush();
    }

    /**
     * The accuracy whose time to hold for good the demo reports beside the target's: {@value
     * #HOLD_BELOW_TARGET} below the target, where the learning curves still climb, so that the
     * evaluation that crosses it is clear of the noise of one evaluation (a few tenths of a percent).
     */
    static double holdAccuracy(double target) {
        return Math.max(0, target - HOLD_BELOW_TARGET);
    }

    /** How far below the target the accuracy held for good is. */
    static final double HOLD_BELOW_TARGET = 0.02;

    /**
     * The first policy against each other: its settled mean round time and (on a network) its wall
     * and worker time to hold {@code hold}, as ratios, e.g. "ata-auto / uta: 0.62x".
     *
     * @param curves the jobs' learning curves, null for the quadratic problem
     */
    private void printComparison(List<LiveJobSummary> jobs, List<LearningCurve> curves, double hold) {
        if (jobs.size() < 2) {
            return;
        }
        LiveJobSummary first = jobs.get(0);
        out.println();
        for (int i = 1; i < jobs.size(); i++) {
            LiveJobSummary other = jobs.get(i);
            StringBuilder line = new StringBuilder(String.format(
                    Locale.ROOT,
                    "%s / %s: mean round %d-%d %s",
                    first.policy(),
                    other.policy(),
                    first.steadyFromRound(),
                    first.rounds(),
                    ratio(first.steadyMeanRoundMs(), other.steadyMeanRoundMs())));
            if (curves != null) {
                line.append(String.format(
                        Locale.ROOT,
                        ", time to hold %s %s, worker time to hold it %s",
                        level(hold),
                        ratio(
                                curves.get(0).wallSecondsToHold(hold),
                                curves.get(i).wallSecondsToHold(hold)),
                        ratio(
                                curves.get(0).workerSecondsToHold(hold),
                                curves.get(i).workerSecondsToHold(hold))));
            }
            out.println(line);
        }
    }

    private static String ratio(double a, double b) {
        return Double.isFinite(a) && Double.isFinite(b) && b > 0 ? String.format(Locale.ROOT, "%.2fx", a / b) : "-";
    }

    /** The line above every chart of the demo: what was trained, the fleet and the job's shape. */
    private String chartHeader() {
        return String.format(
                Locale.ROOT,
                "ata demo: %s, %d agents (%s x %s), batch %d, %d rounds",
                plan.trainsNetwork()
                        ? plan.network().model().spec() + " on "
                                + plan.network().dataName()
                        : "quadratic",
                plan.agents(),
                plan.timeModel(),
                RunInfo.number(plan.timeScale()),
                plan.batch(),
                plan.rounds());
    }

    /**
     * A job's evaluations on its two time axes: wall time from the trainer's start to the scored
     * version's publication, and the compute time of the tasks that had ended by then.
     */
    private static LearningCurve curveOf(LiveDemo.JobOutcome o) {
        WorkerTimeline worker = WorkerTimeline.of(o.timings().records());
        List<EvaluationPoint> points = new ArrayList<>();
        for (Evaluation e : o.evaluations()) {
            long at = e.getModelTimestampMs();
            points.add(new EvaluationPoint(
                    e.getModelVersion(),
                    Math.max(0, at - o.startEpochMs()) / 1e3,
                    worker.workerMsUntil(at) / 1e3,
                    e.getTestLoss(),
                    e.getTestAccuracy()));
        }
        return new LearningCurve(o.policy(), points);
    }

    /** An accuracy as a level the reports name: 80%, 77.5%. */
    private static String level(double fraction) {
        return RunInfo.number(100 * fraction) + "%";
    }

    private static String percent(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }

    /** A job's row; a network has no suboptimality (its objective is the round's training loss). */
    private LiveJobSummary summaryOf(LiveDemo.JobOutcome o) {
        return new LiveJobSummary(
                o.policy(),
                o.job(),
                o.rounds(),
                o.wallSeconds(),
                o.meanRoundMs(),
                SteadyRoundTime.meanMs(o.roundTimes()),
                o.acceptedWorkerMs(),
                o.wastedWorkerMs(),
                o.timings().records().size(),
                o.timings().count(TimingRecord.Status.COMPLETED),
                o.timings().count(TimingRecord.Status.LATE),
                o.timings().count(TimingRecord.Status.CANCELLED),
                plan.trainsNetwork() ? Double.NaN : o.finalObjective(),
                DemoPlan.timingsFileName(o.job()));
    }
}
