package io.ata.lab.timinglog;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads timing logs written by the broker, by {@link TimingLogWriter} or by hand, line by line so
 * that logs with millions of lines are never held in memory as records.
 *
 * <p><b>CSV</b> ({@link CsvTimingSource}): a header row is required and names the columns, in any
 * order: {@code worker} and {@code duration} are required; {@code round}, {@code task},
 * {@code timestamp} and {@code status} ({@code completed}, {@code late}, {@code cancelled}, any
 * case) are optional; other columns are ignored. Blank lines and lines starting with {@code #}
 * (after spaces) are skipped; fields may be quoted as in RFC 4180 (commas, doubled quotes and line breaks inside
 * quotes, the latter kept exactly); CRLF and LF both work. An empty unquoted cell is a missing
 * value; a quoted empty cell is an empty string.
 *
 * <p><b>JSON Lines</b> ({@link JsonLinesTimingSource}): one object per line with the same field
 * names; {@code worker} may be a string or an integer, {@code round} and {@code timestamp} are
 * integers, {@code task} is a string. Missing or {@code null} optional fields are missing values;
 * other fields are ignored.
 *
 * <p>Both formats may start with a byte-order mark, and both check their fields by the same rules
 * ({@link TimingFields}).
 *
 * <p><b>Errors</b>: in strict mode the first bad line throws a {@link TimingLogFormatException}
 * whose message names the file, the line and the reason. In lenient mode ({@code skipInvalid})
 * bad lines are skipped and reported in {@link ReadResult#rejected()}. Problems that make the
 * whole file unreadable (no header, no usable duration, an I/O error) throw in both modes.
 */
public final class TimingLogReader {

    /** Lenient mode keeps at most this many rejected lines (with reasons); it counts them all. */
    public static final int MAX_REPORTED_REJECTS = 1000;

    private static final char BYTE_ORDER_MARK = '\uFEFF';

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
        TimingLineSink out = new TimingLineSink() {
            @Override
            public void record(TimingRecord record) {
                sink.accept(record);
            }

            @Override
            public void invalidLine(long line, String reason) {
                if (!skipInvalid) {
                    throw new TimingLogFormatException(source, line, reason);
                }
                onRejected.accept(new Rejected(line, reason));
            }
        };
        try {
            Reader text = withoutByteOrderMark(in);
            if (format == TimingLogFormat.CSV) {
                CsvTimingSource.read(text, source, out);
            } else {
                JsonLinesTimingSource.read(text, out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read timing log " + source + ": " + e, e);
        }
    }

    /** Drops a leading byte-order mark, which editors on Windows like to write. */
    private static Reader withoutByteOrderMark(Reader in) throws IOException {
        BufferedReader buffered = in instanceof BufferedReader b ? b : new BufferedReader(in);
        buffered.mark(1);
        if (buffered.read() != BYTE_ORDER_MARK) {
            buffered.reset();
        }
        return buffered;
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
}
