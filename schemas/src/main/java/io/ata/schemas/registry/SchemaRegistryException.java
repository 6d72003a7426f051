package io.ata.schemas.registry;

/**
 * A Schema Registry call failed: the registry was unreachable or timed out, answered with an
 * HTTP error, or answered something that is not the Schema Registry protocol.
 *
 * <p>Unchecked because it surfaces through Kafka's {@code Serializer}/{@code Deserializer}
 * interfaces. It usually means the <em>registry</em> has a problem, not the record: a consumer
 * should retry or stop rather than dead-letter the record. A record that names a schema id the
 * registry does not know is reported by the deserializer as a
 * {@code SerializationFormatException} instead.
 */
public class SchemaRegistryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** {@link #httpStatus()} / {@link #errorCode()} when there was no HTTP response. */
    public static final int NONE = -1;

    private final int httpStatus;
    private final int errorCode;

    /** A failure without an HTTP response (unreachable, timeout, bad configuration). */
    public SchemaRegistryException(String message, Throwable cause) {
        super(message, cause);
        this.httpStatus = NONE;
        this.errorCode = NONE;
    }

    /** An HTTP error answer, with the registry's {@code error_code} ({@link #NONE} if absent). */
    public SchemaRegistryException(String message, int httpStatus, int errorCode) {
        super(message);
        this.httpStatus = httpStatus;
        this.errorCode = errorCode;
    }

    /** The HTTP status of the registry's answer, or {@link #NONE}. */
    public int httpStatus() {
        return httpStatus;
    }

    /**
     * The registry's {@code error_code} (e.g. 40401 subject not found, 40403 schema not found,
     * 42201 invalid schema, 409 incompatible schema), or {@link #NONE}.
     */
    public int errorCode() {
        return errorCode;
    }
}
