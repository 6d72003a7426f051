package io.ata.timinglog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Reads timing logs written by the broker, by {@link TimingLogWriter} or by hand, line by line so
 * that logs with millions of lines are never held in memory as records.
 *
 * <p><b>CSV</b>: a header row is required and names the columns, in any order: {@code worker} and
 * {@code duration} are required; {@code round}, {@code task}, {@code timestamp} and
 * {@code status} ({@code completed}, {@code late}, {@code cancelled}, any case) are optional;
 * other columns are ignored. Blank lines and lines starting with {@code #} are skipped; fields may
 * be quoted as in RFC 4180 (commas, doubled quotes and line breaks inside quotes, the latter
 * kept exactly); CRLF and LF both work. An empty unquoted cell is a missing value; a quoted empty cell is an empty string.
 *
 * <p><b>JSON Lines</b>: one object per line with the same field names; {@code worker} may be a
 * string or an integer, {@code round} and {@code timestamp} are integers, {@code task} is a
 * string. Missing or {@code null} optional fields are missing values; other fields are ignored.
 *
 * <p><b>Errors</b>: in strict mode the first bad line throws a {@link TimingLogFormatException}
 * whose message names the file, the line and the reason. In lenient mode ({@code skipInvalid})
 * bad lines are skipped and reported in {@link ReadResult#rejected()}. Problems that make the
 * whole file unreadable (no header, no usable duration, an I/O error) throw in both modes.
 */
public final class TimingLogReader {

    /** Lenient mode keeps at most this many rejected lines (with reasons); it counts them all. */
    public static final int MAX_REPORTED_REJECTS = 1000;

    private static final ObjectReader JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .reader();

    private TimingLogReader() {}

    /** A line that lenient mode skipped, and why. */
    public record Rejected(long line, String reason) {
        @Override
        public String toString() {
            return "line " + line + ": " + reason;
        }
    }

    /**
     * What a lenient read produced.
     *
     * @param log           the log built from the valid lines
     * @param rejected      the first {@link #MAX_REPORTED_REJECTS} skipped lines, in file order
     * @param rejectedCount how many lines were skipped in all
     */
    public record ReadResult(TimingLog log, List<Rejected> rejected, long rejectedCount) {
        public ReadResult {
            rejected = List.copyOf(rejected);
        }
    }

    /** Reads a log strictly, in the format given by the file's extension. */
    public static TimingLog read(Path path) {
        return read(path, TimingLogFormat.ofPath(path));
    }

    /** Reads a log strictly, in the given format. */
    public static TimingLog read(Path path, TimingLogFormat format) {
        return read(path, format, false).log();
    }

    /** Reads a log in the format given by the file's extension, skipping bad lines if {@code skipInvalid}. */
    public static ReadResult read(Path path, boolean skipInvalid) {
        return read(path, TimingLogFormat.ofPath(path), skipInvalid);
    }

    /**
     * Reads a log in the given format.
     *
     * @param skipInvalid if true, skip bad lines and report them; if false, throw on the first one
     * @throws TimingLogFormatException on a bad line (strict mode), a bad header, or a log without
     *                                  any usable duration
     * @throws UncheckedIOException     if the file cannot be read
     */
    public static ReadResult read(Path path, TimingLogFormat format, boolean skipInvalid) {
        TimingLog.Builder builder = TimingLog.builder();
        RejectCollector rejects = new RejectCollector();
        String source = path.toString();
        withReader(path, in -> scan(in, source, format, skipInvalid, builder::add, rejects));
        try {
            return new ReadResult(builder.build(), rejects.kept, rejects.count);
        } catch (IllegalArgumentException e) { // no usable duration
            String detail = rejects.count == 0
                    ? ""
                    : " (" + rejects.count + " lines rejected, first: " + rejects.kept.get(0) + ")";
            throw new TimingLogFormatException(source, 0, e.getMessage() + detail);
        }
    }

    /** Keeps the first {@link #MAX_REPORTED_REJECTS} rejections and counts them all. */
    private static final class RejectCollector implements Consumer<Rejected> {
        final List<Rejected> kept = new ArrayList<>();
        long count;

        @Override
        public void accept(Rejected r) {
            if (kept.size() < MAX_REPORTED_REJECTS) {
                kept.add(r);
            }
            count++;
        }
    }

    /** Reads every record of a log strictly, in file order (for tools and tests; small logs only). */
    public static List<TimingRecord> readRecords(Path path) {
        return readRecords(path, TimingLogFormat.ofPath(path));
    }

    /** Reads every record of a log strictly, in file order (for tools and tests; small logs only). */
    public static List<TimingRecord> readRecords(Path path, TimingLogFormat format) {
        List<TimingRecord> records = new ArrayList<>();
        withReader(path, in -> scan(in, path.toString(), format, false, records::add, r -> {}));
        return records;
    }

    /**
     * The streaming core: parses {@code in} and hands each valid record to {@code sink} in input
     * order. In lenient mode each bad line goes to {@code onRejected}; in strict mode the first
     * bad line throws.
     *
     * @param in     the input; read to its end but not closed
     * @param source the name used in error messages (usually the file name)
     * @throws TimingLogFormatException on a bad line (strict mode) or a bad CSV header
     * @throws UncheckedIOException     if reading fails
     */
    public static void scan(
            Reader in,
            String source,
            TimingLogFormat format,
            boolean skipInvalid,
            Consumer<TimingRecord> sink,
            Consumer<Rejected> onRejected) {
        LineSource src = new LineSource(in, source);
        try {
            if (format == TimingLogFormat.CSV) {
                scanCsv(src, skipInvalid, sink, onRejected);
            } else {
                scanJsonLines(src, skipInvalid, sink, onRejected);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read timing log " + source + ": " + e, e);
        }
    }

    private static void withReader(Path path, Consumer<Reader> action) {
        try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            action.accept(in);
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("cannot read timing log " + path + ": no such file", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read timing log " + path + ": " + e, e);
        }
    }

    // ---------------------------------------------------------------- CSV

    private static final String[] KNOWN_COLUMNS = {"worker", "duration", "round", "task", "timestamp", "status"};

    private static void scanCsv(
            LineSource src, boolean skipInvalid, Consumer<TimingRecord> sink, Consumer<Rejected> onRejected)
            throws IOException {
        // the header: first line that is neither blank nor a comment
        String line;
        while ((line = src.next()) != null && isSkippable(line)) {
            // skip
        }
        if (line == null) {
            throw new TimingLogFormatException(
                    src.name, 0, "no header row; the first line must name the columns, e.g. worker,duration");
        }
        long headerLine = src.lineNumber;
        int[] columnOf; // KNOWN_COLUMNS[c] is at field columnOf[c], or -1
        int width;
        try {
            List<String> header = parseCsvRecord(line, src);
            width = header.size();
            columnOf = headerColumns(header);
        } catch (LineError e) {
            throw new TimingLogFormatException(src.name, headerLine, e.getMessage());
        }

        while ((line = src.next()) != null) {
            if (isSkippable(line)) {
                continue;
            }
            long start = src.lineNumber;
            TimingRecord record;
            try {
                List<String> f = parseCsvRecord(line, src);
                if (f.size() != width) {
                    throw new LineError("expected " + width + " fields as in the header, found " + f.size());
                }
                record = toRecord(
                        f.get(columnOf[0]),
                        f.get(columnOf[1]),
                        columnOf[2] < 0 ? null : f.get(columnOf[2]),
                        columnOf[3] < 0 ? null : f.get(columnOf[3]),
                        columnOf[4] < 0 ? null : f.get(columnOf[4]),
                        columnOf[5] < 0 ? null : f.get(columnOf[5]));
            } catch (LineError | IllegalArgumentException e) {
                reject(src, start, e.getMessage(), skipInvalid, onRejected);
                continue;
            }
            sink.accept(record);
        }
    }

    private static int[] headerColumns(List<String> header) {
        int[] columnOf = new int[KNOWN_COLUMNS.length];
        Arrays.fill(columnOf, -1);
        for (int i = 0; i < header.size(); i++) {
            String h = header.get(i) == null ? "" : header.get(i).trim().toLowerCase(Locale.ROOT);
            for (int c = 0; c < KNOWN_COLUMNS.length; c++) {
                if (KNOWN_COLUMNS[c].equals(h)) {
                    if (columnOf[c] >= 0) {
                        throw new LineError("header names column '" + h + "' twice");
                    }
                    columnOf[c] = i;
                }
            }
        }
        for (int c = 0; c < 2; c++) {
            if (columnOf[c] < 0) {
                throw new LineError("header has no '" + KNOWN_COLUMNS[c] + "' column (the header must name "
                        + "the columns, with worker and duration required; found: "
                        + String.join(
                                ",",
                                header.stream().map(h -> h == null ? "" : h).toList()) + ")");
            }
        }
        return columnOf;
    }

    private static boolean isSkippable(String line) {
        String t = line.strip();
        return t.isEmpty() || t.charAt(0) == '#';
    }

    /**
     * Splits one CSV record into fields. A quoted field may span lines, in which case further lines
     * are pulled from {@code src}. Unquoted fields are trimmed and an empty one becomes
     * {@code null}; quoted fields are kept exactly.
     */
    static List<String> parseCsvRecord(String firstLine, LineSource src) throws IOException {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean inQuotes = false;
        boolean quoted = false; // the current field was quoted
        boolean afterQuote = false; // the closing quote was seen; only blanks may follow
        long startLine = src.lineNumber;
        String line = firstLine;
        int i = 0;
        while (true) {
            if (i == line.length()) {
                if (!inQuotes) {
                    break;
                }
                String lineBreak = src.terminator; // kept exactly: "\n", "\r\n" or "\r"
                line = src.next();
                if (line == null) {
                    throw new LineError("quoted field opened on line " + startLine + " is never closed");
                }
                field.append(lineBreak);
                i = 0;
                continue;
            }
            char c = line.charAt(i++);
            if (inQuotes) {
                if (c == '"') {
                    if (i < line.length() && line.charAt(i) == '"') {
                        field.append('"');
                        i++;
                    } else {
                        inQuotes = false;
                        afterQuote = true;
                    }
                } else {
                    field.append(c);
                }
            } else if (c == ',') {
                fields.add(finishField(field, quoted));
                field.setLength(0);
                quoted = false;
                afterQuote = false;
            } else if (afterQuote) {
                if (!Character.isWhitespace(c)) {
                    throw new LineError("unexpected text after a closing quote in field " + (fields.size() + 1));
                }
            } else if (c == '"' && field.toString().isBlank()) {
                field.setLength(0);
                inQuotes = true;
                quoted = true;
            } else {
                field.append(c);
            }
        }
        fields.add(finishField(field, quoted));
        return fields;
    }

    private static String finishField(StringBuilder field, boolean quoted) {
        if (quoted) {
            return field.toString();
        }
        String t = field.toString().strip();
        return t.isEmpty() ? null : t;
    }

    // ---------------------------------------------------------------- JSON Lines

    private static void scanJsonLines(
            LineSource src, boolean skipInvalid, Consumer<TimingRecord> sink, Consumer<Rejected> onRejected)
            throws IOException {
        String line;
        while ((line = src.next()) != null) {
            if (isSkippable(line)) {
                continue;
            }
            TimingRecord record;
            try {
                if (line.strip().startsWith("[")) {
                    throw new LineError(
                            "expected one JSON object per line (JSON Lines); a JSON array is not supported");
                }
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (JsonProcessingException e) {
                    throw new LineError("invalid JSON: " + e.getOriginalMessage());
                }
                if (node == null || !node.isObject()) {
                    throw new LineError("expected one JSON object per line (JSON Lines), found "
                            + (node == null
                                    ? "nothing"
                                    : node.getNodeType().toString().toLowerCase(Locale.ROOT)));
                }
                record = toRecord(
                        jsonId(node, "worker"),
                        jsonNumber(node, "duration"),
                        jsonNumber(node, "round"),
                        jsonId(node, "task"),
                        jsonNumber(node, "timestamp"),
                        jsonString(node, "status"));
            } catch (LineError | IllegalArgumentException e) {
                reject(src, src.lineNumber, e.getMessage(), skipInvalid, onRejected);
                continue;
            }
            sink.accept(record);
        }
    }

    /** A field that may be a string or an integer (ids): returned as text, or null if absent. */
    private static String jsonId(JsonNode object, String name) {
        JsonNode v = object.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isTextual()) {
            return v.textValue();
        }
        if (v.isIntegralNumber()) {
            return v.asText();
        }
        throw new LineError(name + " must be a string or an integer, was " + v);
    }

    /** A numeric field, as its text (so that CSV and JSON share one parser), or null if absent. */
    private static String jsonNumber(JsonNode object, String name) {
        JsonNode v = object.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isNumber() || v.isTextual()) {
            return v.asText();
        }
        throw new LineError(name + " must be a number, was " + v);
    }

    private static String jsonString(JsonNode object, String name) {
        JsonNode v = object.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isTextual()) {
            return v.textValue();
        }
        throw new LineError(name + " must be a string, was " + v);
    }

    // ---------------------------------------------------------------- shared

    /** Builds a record from field texts (null = missing), with messages that name the bad field. */
    private static TimingRecord toRecord(
            String worker, String duration, String round, String task, String timestamp, String status) {
        if (worker == null || worker.isBlank()) {
            throw new LineError("worker is missing or empty");
        }
        if (duration == null || duration.isBlank()) {
            throw new LineError("duration is missing or empty");
        }
        double d;
        try {
            d = Double.parseDouble(duration.strip());
        } catch (NumberFormatException e) {
            throw new LineError("duration '" + duration + "' is not a number");
        }
        if (!Double.isFinite(d)) {
            throw new LineError("duration '" + duration + "' is not a finite number");
        }
        if (d < 0) {
            throw new LineError("duration " + duration + " is negative");
        }
        return new TimingRecord(
                worker,
                d,
                parseLong("round", round),
                task,
                parseLong("timestamp", timestamp),
                status == null || status.isBlank() ? TimingRecord.Status.COMPLETED : TimingRecord.Status.parse(status));
    }

    private static Long parseLong(String name, String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new LineError(name + " '" + text + "' is not an integer");
        }
    }

    private static void reject(
            LineSource src, long line, String reason, boolean skipInvalid, Consumer<Rejected> onRejected) {
        if (!skipInvalid) {
            throw new TimingLogFormatException(src.name, line, reason);
        }
        onRejected.accept(new Rejected(line, reason));
    }

    /** A problem with one line; turned into a rejection or a {@link TimingLogFormatException}. */
    private static final class LineError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        LineError(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Lines with their 1-based numbers. Unlike {@link BufferedReader#readLine()} it remembers how
     * each line ended, so a quoted CSV field spanning lines keeps its exact line breaks. Drops a
     * leading byte-order mark.
     */
    static final class LineSource {
        final String name;
        private final Reader in;
        private final char[] buf = new char[8192];
        private int pos;
        private int len;
        private final StringBuilder line = new StringBuilder(128);
        long lineNumber;
        /** How the last returned line ended: "\n", "\r\n", "\r", or "" at the end of the input. */
        String terminator = "";

        LineSource(Reader in, String name) {
            this.in = in;
            this.name = name;
        }

        /** The next line without its terminator, or null at the end of the input. */
        String next() throws IOException {
            line.setLength(0);
            boolean any = false;
            while (true) {
                if (pos == len && !fill()) {
                    if (!any) {
                        return null;
                    }
                    terminator = "";
                    break;
                }
                any = true;
                int start = pos;
                while (pos < len && buf[pos] != '\n' && buf[pos] != '\r') {
                    pos++;
                }
                line.append(buf, start, pos - start);
                if (pos < len) {
                    char c = buf[pos++];
                    if (c == '\n') {
                        terminator = "\n";
                    } else if ((pos < len || fill()) && buf[pos] == '\n') {
                        pos++;
                        terminator = "\r\n";
                    } else {
                        terminator = "\r";
                    }
                    break;
                }
            }
            lineNumber++;
            if (lineNumber == 1 && line.length() > 0 && line.charAt(0) == '\uFEFF') {
                line.deleteCharAt(0);
            }
            return line.toString();
        }

        private boolean fill() throws IOException {
            int n = in.read(buf, 0, buf.length);
            if (n <= 0) {
                pos = 0;
                len = 0;
                return false;
            }
            pos = 0;
            len = n;
            return true;
        }
    }
}
