package io.ata.ml.net;

/**
 * Two parameter layouts that should be the same are not, e.g. the network an agent built from its
 * spec and the layout the trainer published with the model version. The message names the first
 * difference.
 */
public final class LayoutMismatchException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public LayoutMismatchException(String message) {
        super(message);
    }
}
