package io.ata.lab.timinglog;

import java.nio.file.Path;
import java.util.Locale;

/** The file formats of timing logs, shared by {@link TimingLogReader} and {@link TimingLogWriter}. */
public enum TimingLogFormat {
    /** Comma-separated values with a header row naming the columns. */
    CSV,
    /** JSON Lines: one JSON object per line. */
    JSONL;

    /**
     * The format implied by a file name: {@code .csv} is CSV; {@code .jsonl}, {@code .ndjson} and
     * {@code .json} are JSON Lines (case-insensitive).
     *
     * @throws IllegalArgumentException for any other extension, so that a typo in a path is not
     *                                  silently read in the wrong format
     */
    public static TimingLogFormat ofPath(Path path) {
        String name =
                path.getFileName() == null ? "" : path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".csv")) {
            return CSV;
        }
        if (name.endsWith(".jsonl") || name.endsWith(".ndjson") || name.endsWith(".json")) {
            return JSONL;
        }
        throw new IllegalArgumentException("cannot tell the format of timing log " + path
                + " from its extension; use .csv, .jsonl, .ndjson or .json, or name the format explicitly");
    }

    /** Reads a format name: {@code csv}, {@code jsonl}, {@code ndjson} or {@code json} (case-insensitive). */
    public static TimingLogFormat parse(String name) {
        return switch (name.trim().toLowerCase(Locale.ROOT)) {
            case "csv" -> CSV;
            case "jsonl", "ndjson", "json" -> JSONL;
            default ->
                throw new IllegalArgumentException(
                        "unknown timing log format '" + name + "'; known: csv, jsonl (alias ndjson, json)");
        };
    }
}
