package io.ata.lab.export;

/**
 * The timings could not be exported: a topic is missing or cannot be read in time, or no record
 * is of the job asked for. The message is written for the user.
 */
public final class TimingExportException extends RuntimeException {
    TimingExportException(String message) {
        super(message);
    }

    TimingExportException(String message, Throwable cause) {
        super(message, cause);
    }
}
