package io.ata.lab.report;

import io.ata.lab.sim.PolicySummary;
import io.ata.lab.sim.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The short table printed at the end of a run: the numbers one compares at a glance, aligned,
 * large values in scientific notation ({@code 5.849e+08}). A policy whose replay stopped early gets
 * an extra column saying where and why, so a short run is never mistaken for a full one.
 */
public final class ResultTable {
    private static final List<String> HEADER = List.of(
            "policy",
            "rounds",
            "runtime",
            "total worker time",
            "mean round time",
            "mean busy time",
            "wasted %",
            "avg proxy regret",
            "final objective");

    private ResultTable() {}

    public static String format(List<PolicySummary> summaries, Map<String, List<RunResult>> results) {
        boolean anyStopped = results.values().stream().flatMap(List::stream).anyMatch(r -> r.stopReason() != null);
        List<List<String>> rows = new ArrayList<>();
        List<String> header = new ArrayList<>(HEADER);
        if (anyStopped) {
            header.add("stopped early");
        }
        rows.add(header);
        for (PolicySummary s : summaries) {
            List<String> row = new ArrayList<>(List.of(
                    s.policy(),
                    rounds(s.rounds().mean()),
                    sci(s.runtime().mean()),
                    sci(s.totalWorkerTime().mean()),
                    sci(s.meanRoundTime().mean()),
                    sci(s.meanBusyTime().mean()),
                    Double.isNaN(s.wastedFraction().mean())
                            ? "-"
                            : String.format(
                                    Locale.ROOT,
                                    "%.1f%%",
                                    100 * s.wastedFraction().mean()),
                    sci(s.averageProxyRegret().mean()),
                    sci(s.finalObjective().mean())));
            if (anyStopped) {
                row.add(stopNote(results.get(s.policy())));
            }
            rows.add(row);
        }
        return align(rows);
    }

    /** "seed 5 at round 812: reason", plus how many other seeds stopped; "-" if none did. */
    static String stopNote(List<RunResult> runs) {
        List<RunResult> stopped =
                runs.stream().filter(r -> r.stopReason() != null).toList();
        if (stopped.isEmpty()) {
            return "-";
        }
        RunResult first = stopped.get(0);
        String note = "seed " + first.seed() + " after round " + first.rounds() + ": " + first.stopReason();
        int others = stopped.size() - 1;
        return others == 0 ? note : note + " (+" + others + " more seed" + (others == 1 ? ")" : "s)");
    }

    /** {@code 5.849e+08}; "-" for unknown values. */
    public static String sci(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3e", v);
    }

    private static String rounds(double mean) {
        return mean == Math.rint(mean) ? Long.toString((long) mean) : String.format(Locale.ROOT, "%.1f", mean);
    }

    /** Left-aligns the first and last text columns, right-aligns the numbers. */
    private static String align(List<List<String>> rows) {
        return TextTable.format(rows, c -> c == 0 || c == HEADER.size(), false);
    }
}
