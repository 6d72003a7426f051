package io.ata.lab.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code series.csv}: the curves behind the charts in long format (one row per policy and sampled
 * round), mean and sample standard deviation over seeds, ready for plotting tools that group by a
 * column.
 */
public final class SeriesCsv {
    private SeriesCsv() {}

    public static List<String> columns() {
        List<String> columns = new ArrayList<>(List.of("policy", "round"));
        for (SeriesMetric m : SeriesMetric.values()) {
            columns.add(m.column());
        }
        for (SeriesMetric m : SeriesMetric.values()) {
            columns.add(m.column() + "_sd");
        }
        return columns;
    }

    public static void write(Path file, List<PolicySeries> series) {
        try (CsvWriter csv = new CsvWriter(file, columns())) {
            for (PolicySeries p : series) {
                for (int i = 0; i < p.size(); i++) {
                    List<String> row = new ArrayList<>();
                    row.add(p.policy());
                    row.add(Long.toString(p.rounds()[i]));
                    for (SeriesMetric m : SeriesMetric.values()) {
                        row.add(CsvWriter.number(p.mean(m)[i]));
                    }
                    for (SeriesMetric m : SeriesMetric.values()) {
                        row.add(CsvWriter.number(p.sd(m)[i]));
                    }
                    csv.row(row);
                }
            }
        }
    }
}
