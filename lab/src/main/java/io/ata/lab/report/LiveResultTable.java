package io.ata.lab.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table {@code ata demo} prints at the end: per job, its rounds, wall time, mean round time,
 * the agents' compute time, how much of it was wasted, and where training got to (the final
 * suboptimality of the quadratic problem; a network's final test accuracy and the wall and worker
 * time it took to reach the target accuracy).
 */
public final class LiveResultTable {
    private static final List<String> COMMON =
            List.of("policy", "rounds", "wall time", "mean round", "worker time", "wasted work");

    private LiveResultTable() {}

    /** A run on the quadratic problem. */
    public static String format(List<LiveJobSummary> jobs) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(header(List.of("final subopt.")));
        for (LiveJobSummary j : jobs) {
            List<String> row = common(j);
            row.add(String.format(Locale.ROOT, "%.4g", j.finalSuboptimality()));
            rows.add(row);
        }
        return TextTable.format(rows, c -> c == 0, true);
    }

    /**
     * A run on a network: {@code curves.get(i)} is the learning curve of {@code jobs.get(i)}; a
     * target never reached shows as "-".
     */
    public static String format(List<LiveJobSummary> jobs, List<LearningCurve> curves, double target) {
        String percent = String.format(Locale.ROOT, "%.0f%%", 100 * target);
        List<List<String>> rows = new ArrayList<>();
        rows.add(header(List.of("test accuracy", "time to " + percent, "worker time to " + percent)));
        for (int i = 0; i < jobs.size(); i++) {
            LearningCurve c = curves.get(i);
            List<String> row = common(jobs.get(i));
            row.add(String.format(Locale.ROOT, "%.2f%%", 100 * c.finalAccuracy()));
            row.add(seconds(c.wallSecondsTo(target)));
            row.add(seconds(c.workerSecondsTo(target)));
            rows.add(row);
        }
        return TextTable.format(rows, c -> c == 0, true);
    }

    private static List<String> header(List<String> last) {
        List<String> header = new ArrayList<>(COMMON);
        header.addAll(last);
        return header;
    }

    private static List<String> common(LiveJobSummary j) {
        double total = j.totalWorkerMs();
        return new ArrayList<>(List.of(
                j.policy(),
                Long.toString(j.rounds()),
                seconds(j.wallSeconds()),
                String.format(Locale.ROOT, "%.1f ms", j.meanRoundMs()),
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
