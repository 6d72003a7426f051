package io.ata.lab.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table {@code ata demo} prints at the end: per job, its rounds, wall time, mean round time
 * (over every round, and once settled: {@link SteadyRoundTime}), the agents' compute time, how
 * much of it was wasted, and where training got to (the final suboptimality of the quadratic
 * problem; a network's final test accuracy, the wall and worker time until it held an accuracy
 * for good, and the wall time until it first reached the target: summary.csv has the worker time
 * too).
 */
public final class LiveResultTable {

    private LiveResultTable() {}

    /** A run on the quadratic problem. */
    public static String format(List<LiveJobSummary> jobs) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(header(jobs, List.of("final subopt.")));
        for (LiveJobSummary j : jobs) {
            List<String> row = common(j);
            row.add(String.format(Locale.ROOT, "%.4g", j.finalSuboptimality()));
            rows.add(row);
        }
        return TextTable.format(rows, c -> c == 0, true);
    }

    /**
     * A run on a network: {@code curves.get(i)} is the learning curve of {@code jobs.get(i)}; an
     * accuracy never held or reached shows as "-".
     *
     * @param hold   the accuracy whose time to hold for good ({@link LearningCurve#firstHolding}) is shown
     * @param target the accuracy whose time to the first evaluation at or above it is shown
     */
    public static String format(List<LiveJobSummary> jobs, List<LearningCurve> curves, double hold, double target) {
        String held = percent(hold);
        String first = percent(target);
        List<List<String>> rows = new ArrayList<>();
        rows.add(header(
                jobs,
                List.of(
                        "test accuracy",
                        "time to hold " + held,
                        "worker time to hold " + held,
                        "time to first " + first)));
        for (int i = 0; i < jobs.size(); i++) {
            LearningCurve c = curves.get(i);
            List<String> row = common(jobs.get(i));
            row.add(String.format(Locale.ROOT, "%.2f%%", 100 * c.finalAccuracy()));
            row.add(seconds(c.wallSecondsToHold(hold)));
            row.add(seconds(c.workerSecondsToHold(hold)));
            row.add(seconds(c.wallSecondsTo(target)));
            rows.add(row);
        }
        return TextTable.format(rows, c -> c == 0, true);
    }

    /**
     * The settled mean's column: "mean round 31-150" when every job ran as many rounds, else
     * "mean round, last 4/5".
     */
    static String steadyColumn(List<LiveJobSummary> jobs) {
        long rounds = jobs.isEmpty() ? 0 : jobs.get(0).rounds();
        if (rounds > 0 && jobs.stream().allMatch(j -> j.rounds() == rounds)) {
            return "mean round " + SteadyRoundTime.firstRound(rounds) + "-" + rounds;
        }
        return "mean round, last " + (SteadyRoundTime.LEFT_OUT - 1) + "/" + SteadyRoundTime.LEFT_OUT;
    }

    private static List<String> header(List<LiveJobSummary> jobs, List<String> last) {
        List<String> header =
                new ArrayList<>(List.of("policy", "rounds", "wall time", "mean round", steadyColumn(jobs)));
        header.addAll(List.of("worker time", "wasted work"));
        header.addAll(last);
        return header;
    }

    /** An accuracy as a level: 80%, 77.5%. */
    private static String percent(double fraction) {
        return RunInfo.number(100 * fraction) + "%";
    }

    private static List<String> common(LiveJobSummary j) {
        double total = j.totalWorkerMs();
        return new ArrayList<>(List.of(
                j.policy(),
                Long.toString(j.rounds()),
                seconds(j.wallSeconds()),
                String.format(Locale.ROOT, "%.1f ms", j.meanRoundMs()),
                String.format(Locale.ROOT, "%.1f ms", j.steadyMeanRoundMs()),
                seconds(total / 1e3),
                String.format(
                        Locale.ROOT,
                        "%.1f s (%.0f%%)",
                        j.wastedWorkerMs() / 1e3,
                        total > 0 ? 100 * j.wastedWorkerMs() / total : 0)));
    }

    private static String seconds(double s) {
        return Double.isNaN(s) ? "-" : String.format(Locale.ROOT, "%.1f s", s);
    }
}
