package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.report.PaperPanel;
import io.ata.lab.report.Reports;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/** Checks shared by the simulate and replay tests: every output file is there and sound. */
final class OutputFiles {
    static final List<String> SUMMARY_COLUMNS = List.of(
            "policy",
            "workers",
            "batch",
            "rounds",
            "runtime",
            "total_worker_time",
            "mean_round_time",
            "mean_busy_time",
            "avg_proxy_regret",
            "final_objective",
            "wasted_fraction",
            "tail_mean_round_time",
            "tail_mean_busy_time",
            "first_fta_round",
            "last_non_fta_round",
            "seeds",
            "runtime_sd",
            "total_worker_time_sd",
            "mean_round_time_sd",
            "mean_busy_time_sd",
            "avg_proxy_regret_sd",
            "constants",
            "description");

    static final List<String> SERIES_COLUMNS = List.of(
            "policy",
            "round",
            "runtime",
            "total_worker_time",
            "avg_round_time",
            "avg_proxy_regret",
            "objective",
            "runtime_sd",
            "total_worker_time_sd",
            "avg_round_time_sd",
            "avg_proxy_regret_sd",
            "objective_sd");

    private OutputFiles() {}

    /** All CSV files, run.txt, and every chart at its size; returns the summary. */
    static CsvTable checkAll(Path dir, List<String> policies) throws IOException {
        CsvTable summary = CsvTable.read(dir.resolve("summary.csv"));
        assertEquals(SUMMARY_COLUMNS, summary.header());
        assertEquals(policies, summary.rows().stream().map(r -> r.get("policy")).toList());

        CsvTable series = CsvTable.read(dir.resolve("series.csv"));
        assertEquals(SERIES_COLUMNS, series.header());
        for (String p : policies) {
            assertFalse(series.rowsWhere("policy", p).isEmpty(), "series rows for " + p);
        }
        CsvTable runs = CsvTable.read(dir.resolve("runs.csv"));
        assertTrue(runs.header().containsAll(List.of("policy", "seed", "rounds", "mean_round_time", "stop_reason")));

        String runFile = Files.readString(dir.resolve("run.txt"));
        assertTrue(runFile.contains("command:    ata "), runFile);
        for (String p : policies) {
            assertTrue(runFile.contains("  " + p + ": ") || runFile.contains("  " + p + " (seed"), p + " in run.txt");
        }

        for (PaperPanel panel : PaperPanel.values()) {
            checkImage(dir.resolve(panel.fileName()), Reports.CHART_WIDTH, Reports.CHART_HEIGHT);
        }
        checkImage(dir.resolve("panels.png"), 1200, 900);
        checkImage(dir.resolve("pareto.png"), Reports.CHART_WIDTH, Reports.CHART_HEIGHT);
        return summary;
    }

    static void checkImage(Path file, int width, int height) throws IOException {
        assertTrue(Files.isRegularFile(file), file + " exists");
        BufferedImage image = ImageIO.read(file.toFile());
        assertNotNull(image, file + " is a readable image");
        assertEquals(width, image.getWidth(), file + " width");
        assertEquals(height, image.getHeight(), file + " height");
    }
}
