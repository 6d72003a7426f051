package io.ata.lab.report;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes one CSV file, row by row, so every output file quotes and formats values the same way:
 * fields are quoted per RFC 4180 when they hold a comma, a quote or a line break; numbers are
 * written so they parse back exactly; an unknown value (NaN) is an empty cell, which pandas, R and
 * spreadsheets all read as missing.
 */
final class CsvWriter implements Closeable {
    private final Path path;
    private final BufferedWriter out;

    CsvWriter(Path path, List<String> header) {
        this.path = path;
        try {
            this.out = Files.newBufferedWriter(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
        row(header);
    }

    void row(List<String> fields) {
        try {
            for (int i = 0; i < fields.size(); i++) {
                if (i > 0) {
                    out.write(',');
                }
                out.write(field(fields.get(i)));
            }
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }

    /** RFC 4180: quote a field holding a comma, quote or line break, doubling inner quotes. */
    static String field(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    /** A number as text: whole numbers without a decimal point, others exactly, NaN as empty. */
    static String number(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }

    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }
}
