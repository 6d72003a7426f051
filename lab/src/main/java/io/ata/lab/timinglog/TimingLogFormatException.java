package io.ata.lab.timinglog;

/**
 * A timing log that cannot be read, with where and why: the message reads like
 * {@code timings.csv line 17: duration 'abc' is not a number}, so a user can fix the file.
 */
public final class TimingLogFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final long line;
    private final String reason;

    /**
     * @param source the file name (or other description of the input)
     * @param line   the 1-based line number, or 0 when the problem is not on one line
     * @param reason what is wrong
     */
    public TimingLogFormatException(String source, long line, String reason) {
        super(source + (line > 0 ? " line " + line : "") + ": " + reason);
        this.source = source;
        this.line = line;
        this.reason = reason;
    }

    public String source() {
        return source;
    }

    /** The 1-based line number, or 0 when the problem concerns the whole file. */
    public long line() {
        return line;
    }

    public String reason() {
        return reason;
    }
}
