package io.ata.ml.djl;

/**
 * DJL's PyTorch engine could not be loaded; the message says why and which Maven artifacts must be
 * on the classpath.
 */
public final class EngineUnavailableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public EngineUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
