package io.ata.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table {@code ata demo} prints at the end: per job, its rounds, wall time, mean round time,
 * the agents' compute time, how much of it was wasted, and where training got to.
 */
public final class LiveResultTable {
    private static final List<String> HEADER =
            List.of("policy", "rounds", "wall time", "mean round", "worker time", "wasted work", "final subopt.");

    private LiveResultTable() {}

    public static String format(List<LiveJobSummary> jobs) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        for (LiveJobSummary j : jobs) {
            double total = j.totalWorkerMs();
            rows.add(List.of(
                    j.policy(),
                    Long.toString(j.rounds()),
                    String.format(Locale.ROOT, "%.1f s", j.wallSeconds()),
                    String.format(Locale.ROOT, "%.1f ms", j.meanRoundMs()),
                    String.format(Locale.ROOT, "%.1f s", total / 1e3),
                    String.format(
                            Locale.ROOT,
                            "%.1f s (%.0f%%)",
                            j.wastedWorkerMs() / 1e3,
                            total > 0 ? 100 * j.wastedWorkerMs() / total : 0),
                    String.format(Locale.ROOT, "%.4g", j.finalSuboptimality())));
        }
        return TextTable.format(rows, c -> c == 0, true);
    }
}
