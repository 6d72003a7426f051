package io.ata.lab.timinglog;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.stream.Stream;

/**
 * Writes timing records as CSV or JSON Lines, in a form {@link TimingLogReader} reads back to the
 * same records: durations are written with {@link Double#toString(double)} (the shortest text that
 * parses back to the same double), CSV fields are quoted whenever the reader would otherwise
 * change them, and missing values are empty CSV cells or absent JSON fields.
 *
 * <p>Either write a whole collection or stream at once with the static {@code write} methods, or
 * {@link #open(Path) open} a writer and {@link #append(TimingRecord) append} records as tasks
 * finish (the broker records a live log this way). Not thread-safe.
 */
public final class TimingLogWriter implements Closeable, Flushable {

    /** The CSV header, in the column order the writer uses. */
    public static final String CSV_HEADER = "worker,duration,round,task,timestamp,status";

    private static final JsonFactory JSON = new JsonFactory();

    private final Writer out;
    private final TimingLogFormat format;
    private final JsonGenerator json; // null for CSV

    /**
     * A writer on {@code out}; the CSV header is written at once. Closing this writer closes
     * {@code out}.
     */
    public TimingLogWriter(Writer out, TimingLogFormat format) {
        this.out = out;
        this.format = format;
        try {
            if (format == TimingLogFormat.CSV) {
                json = null;
                out.write(CSV_HEADER);
                out.write('\n');
            } else {
                json = JSON.createGenerator(out);
                json.setRootValueSeparator(null); // we write our own '\n' after each object
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Creates (or truncates) {@code path} and writes in the format given by its extension. */
    public static TimingLogWriter open(Path path) {
        return open(path, TimingLogFormat.ofPath(path));
    }

    /** Creates (or truncates) {@code path} and writes in {@code format}. */
    public static TimingLogWriter open(Path path, TimingLogFormat format) {
        try {
            BufferedWriter w = Files.newBufferedWriter(path, StandardCharsets.UTF_8);
            return new TimingLogWriter(w, format);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write timing log " + path, e);
        }
    }

    /** Writes {@code records} to {@code path}, in the format given by its extension. */
    public static void write(Path path, Iterable<TimingRecord> records) {
        write(path, TimingLogFormat.ofPath(path), records.iterator());
    }

    /** Writes {@code records} to {@code path} in {@code format}. */
    public static void write(Path path, TimingLogFormat format, Iterable<TimingRecord> records) {
        write(path, format, records.iterator());
    }

    /** Writes {@code records} to {@code path}, in the format given by its extension. */
    public static void write(Path path, Stream<TimingRecord> records) {
        write(path, TimingLogFormat.ofPath(path), records.iterator());
    }

    /** Writes {@code records} to {@code path} in {@code format}. */
    public static void write(Path path, TimingLogFormat format, Stream<TimingRecord> records) {
        write(path, format, records.iterator());
    }

    private static void write(Path path, TimingLogFormat format, Iterator<TimingRecord> records) {
        try (TimingLogWriter w = open(path, format)) {
            while (records.hasNext()) {
                w.append(records.next());
            }
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("cannot write timing log " + path, e.getCause());
        }
    }

    /** Writes one record as one line (or, in CSV, more if a quoted field holds a line break). */
    public TimingLogWriter append(TimingRecord r) {
        try {
            if (format == TimingLogFormat.CSV) {
                appendCsv(r);
            } else {
                appendJson(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    private void appendCsv(TimingRecord r) throws IOException {
        StringBuilder line = new StringBuilder(64);
        line.append(csvField(r.worker()))
                .append(',')
                .append(Double.toString(r.duration()))
                .append(',');
        if (r.round() != null) {
            line.append(r.round().longValue());
        }
        line.append(',');
        if (r.task() != null) {
            line.append(csvField(r.task()));
        }
        line.append(',');
        if (r.timestamp() != null) {
            line.append(r.timestamp().longValue());
        }
        line.append(',').append(r.status().label()).append('\n');
        out.write(line.toString());
    }

    /**
     * Quotes a text field when the reader would not read it back unchanged: separators, quotes and
     * line breaks; leading or trailing blanks (the reader trims unquoted fields); an empty string
     * (an empty unquoted cell means "missing"); and a leading {@code #} (a comment line if it is
     * the first field).
     */
    static String csvField(String s) {
        boolean quote = s.isEmpty() || s.charAt(0) == '#' || !s.equals(s.strip());
        for (int i = 0; i < s.length() && !quote; i++) {
            char c = s.charAt(i);
            quote = c == ',' || c == '"' || c == '\n' || c == '\r';
        }
        return quote ? '"' + s.replace("\"", "\"\"") + '"' : s;
    }

    private void appendJson(TimingRecord r) throws IOException {
        json.writeStartObject();
        json.writeStringField("worker", r.worker());
        json.writeNumberField("duration", r.duration()); // Double.toString precision
        if (r.round() != null) {
            json.writeNumberField("round", r.round().longValue());
        }
        if (r.task() != null) {
            json.writeStringField("task", r.task());
        }
        if (r.timestamp() != null) {
            json.writeNumberField("timestamp", r.timestamp().longValue());
        }
        json.writeStringField("status", r.status().label());
        json.writeEndObject();
        json.writeRaw('\n');
    }

    @Override
    public void flush() throws IOException {
        if (json != null) {
            json.flush();
        }
        out.flush();
    }

    @Override
    public void close() {
        try {
            if (json != null) {
                json.close(); // flushes, and closes out (AUTO_CLOSE_TARGET)
            }
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
