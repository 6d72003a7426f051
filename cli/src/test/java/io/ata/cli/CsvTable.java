package io.ata.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A CSV file read back for assertions: a header and rows by column name (RFC 4180 quoting). Public
 * for the end-to-end tests, which read what the distribution jar writes.
 */
public record CsvTable(List<String> header, List<Map<String, String>> rows) {

    public static CsvTable read(Path file) throws IOException {
        List<List<String>> records = parse(Files.readString(file, StandardCharsets.UTF_8));
        List<String> header = records.get(0);
        List<Map<String, String>> rows = new ArrayList<>();
        for (List<String> r : records.subList(1, records.size())) {
            if (r.size() != header.size()) {
                throw new IllegalStateException(file + ": row has " + r.size() + " fields, header " + header.size());
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.size(); i++) {
                row.put(header.get(i), r.get(i));
            }
            rows.add(row);
        }
        return new CsvTable(header, rows);
    }

    Map<String, String> row(String column, String value) {
        return rows.stream()
                .filter(r -> value.equals(r.get(column)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row with " + column + "=" + value));
    }

    List<Map<String, String>> rowsWhere(String column, String value) {
        return rows.stream().filter(r -> value.equals(r.get(column))).toList();
    }

    public static double number(Map<String, String> row, String column) {
        return Double.parseDouble(row.get(column));
    }

    private static List<List<String>> parse(String text) {
        List<List<String>> records = new ArrayList<>();
        List<String> record = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                record.add(field.toString());
                field.setLength(0);
            } else if (c == '\n') {
                record.add(field.toString());
                field.setLength(0);
                records.add(record);
                record = new ArrayList<>();
            } else {
                field.append(c);
            }
        }
        if (field.length() > 0 || !record.isEmpty()) {
            record.add(field.toString());
            records.add(record);
        }
        return records;
    }
}
