package io.ata.lab.timinglog;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where each field of a timing record sits in a CSV file, as its header row names them: in any
 * order, in any case, with {@code worker} and {@code duration} required and other columns ignored.
 */
final class CsvColumns {
    private static final List<String> FIELDS = List.of("worker", "duration", "round", "task", "timestamp", "status");
    private static final int REQUIRED = 2; // worker and duration

    /** {@code FIELDS.get(f)} is in cell {@code cellOf[f]}, or nowhere if -1. */
    private final int[] cellOf;

    private final int width;

    private CsvColumns(int[] cellOf, int width) {
        this.cellOf = cellOf;
        this.width = width;
    }

    /**
     * Reads a header row.
     *
     * @throws InvalidLineException if it names a field twice or lacks a required one
     */
    static CsvColumns ofHeader(List<String> header) {
        int[] cellOf = new int[FIELDS.size()];
        Arrays.fill(cellOf, -1);
        for (int i = 0; i < header.size(); i++) {
            String name = header.get(i) == null ? "" : header.get(i).trim().toLowerCase(Locale.ROOT);
            int f = FIELDS.indexOf(name);
            if (f >= 0) {
                if (cellOf[f] >= 0) {
                    throw new InvalidLineException("header names column '" + name + "' twice");
                }
                cellOf[f] = i;
            }
        }
        for (int f = 0; f < REQUIRED; f++) {
            if (cellOf[f] < 0) {
                throw new InvalidLineException("header has no '" + FIELDS.get(f) + "' column (the header must name "
                        + "the columns, with worker and duration required; found: "
                        + String.join(
                                ",",
                                header.stream().map(h -> h == null ? "" : h).toList()) + ")");
            }
        }
        return new CsvColumns(cellOf, header.size());
    }

    /**
     * The fields of a data row.
     *
     * @throws InvalidLineException if the row has more or fewer cells than the header
     */
    TimingFields fieldsOf(List<String> cells) {
        if (cells.size() != width) {
            throw new InvalidLineException("expected " + width + " fields as in the header, found " + cells.size());
        }
        return new TimingFields(
                cell(cells, 0), cell(cells, 1), cell(cells, 2), cell(cells, 3), cell(cells, 4), cell(cells, 5));
    }

    private String cell(List<String> cells, int field) {
        return cellOf[field] < 0 ? null : cells.get(cellOf[field]);
    }
}
