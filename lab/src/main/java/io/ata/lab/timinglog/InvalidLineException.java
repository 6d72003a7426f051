package io.ata.lab.timinglog;

/**
 * What is wrong with one line of a timing log. {@link TimingLogReader} turns it into a rejected
 * line (lenient mode) or a {@link TimingLogFormatException} naming the file and line (strict mode).
 */
final class InvalidLineException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    InvalidLineException(String reason) {
        super(reason, null, false, false); // a verdict on the input, not a bug: no stack trace
    }
}
