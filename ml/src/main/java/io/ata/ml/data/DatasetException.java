package io.ata.ml.data;

/** A data set cannot be found, read or parsed; the message names the file and what is wrong. */
public final class DatasetException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DatasetException(String message) {
        super(message);
    }

    public DatasetException(String message, Throwable cause) {
        super(message, cause);
    }
}
