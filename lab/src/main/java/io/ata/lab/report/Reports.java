package io.ata.lab.report;

import io.ata.lab.sim.PolicySummary;
import io.ata.lab.sim.RunResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jfree.chart.JFreeChart;

/**
 * Writes every output of a run into one directory: the three CSV files, {@code run.txt}, and
 * (unless turned off) the charts. The one place that knows the output file names.
 */
public final class Reports {
    public static final String SUMMARY = "summary.csv";
    public static final String SERIES = "series.csv";
    public static final String RUNS = "runs.csv";
    public static final String RUN_FILE = "run.txt";
    public static final String PANELS = "panels.png";
    public static final String PARETO = "pareto.png";

    public static final int PANELS_WIDTH = 1200;
    public static final int PANELS_HEIGHT = 900;
    public static final int CHART_WIDTH = 800;
    public static final int CHART_HEIGHT = 600;

    private Reports() {}

    /** The summary rows, one per policy, in run order. */
    public static List<PolicySummary> summaries(Map<String, List<RunResult>> results) {
        return results.values().stream().map(PolicySummary::of).toList();
    }

    /**
     * Writes all outputs into {@code dir} (created if missing).
     *
     * @return the files written, in writing order
     */
    public static List<Path> write(
            Path dir,
            Map<String, List<RunResult>> results,
            RunInfo info,
            ZonedDateTime started,
            Duration wallTime,
            boolean charts) {
        createDirectory(dir);
        List<PolicySummary> summaries = summaries(results);
        List<PolicySeries> series =
                results.values().stream().map(PolicySeries::of).toList();
        RunResult any = results.values().iterator().next().get(0);
        List<Path> written = new ArrayList<>();

        SummaryCsv.write(add(written, dir, SUMMARY), summaries, any.workers(), any.batch(), info);
        SeriesCsv.write(add(written, dir, SERIES), series);
        RunsCsv.write(add(written, dir, RUNS), results, info);
        RunFile.write(add(written, dir, RUN_FILE), info, results, started, wallTime);
        if (charts) {
            PolicyColors colors = new PolicyColors(List.copyOf(results.keySet()));
            List<JFreeChart> panels = new ArrayList<>();
            for (PaperPanel panel : PaperPanel.values()) {
                JFreeChart chart = panel.chart(series, colors, info.timeUnit());
                ChartFiles.png(chart, add(written, dir, panel.fileName()), CHART_WIDTH, CHART_HEIGHT);
                panels.add(chart);
            }
            ChartFiles.grid(panels, 2, info.title(), add(written, dir, PANELS), PANELS_WIDTH, PANELS_HEIGHT);
            ChartFiles.png(
                    RoundTimeChart.create(series, colors, info.timeUnit()),
                    add(written, dir, RoundTimeChart.FILE),
                    CHART_WIDTH,
                    CHART_HEIGHT);
            ChartFiles.png(
                    ParetoChart.create(
                            "Time vs cost per round: " + info.title(),
                            ParetoFront.timeVsCost(summaries),
                            colors,
                            info.timeUnit(),
                            CHART_WIDTH,
                            CHART_HEIGHT),
                    add(written, dir, PARETO),
                    CHART_WIDTH,
                    CHART_HEIGHT);
        }
        return written;
    }

    /** The PNG files {@link #write} makes when charts are on. */
    public static List<String> chartFiles() {
        List<String> files = new ArrayList<>();
        for (PaperPanel p : PaperPanel.values()) {
            files.add(p.fileName());
        }
        files.add(PANELS);
        files.add(RoundTimeChart.FILE);
        files.add(PARETO);
        return files;
    }

    private static Path add(List<Path> written, Path dir, String name) {
        Path file = dir.resolve(name);
        written.add(file);
        return file;
    }

    public static void createDirectory(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw new UncheckedIOException("cannot create output directory " + dir + ": a file of that name exists", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create output directory " + dir + ": " + e, e);
        }
    }
}
