package io.ata.schemas.serde;

import java.util.Objects;
import org.apache.kafka.common.errors.SerializationException;

/**
 * The bytes of a record are not a valid value for the expected record type: the record itself is
 * bad, so retrying cannot help. The broker catches this and sends the raw record to the
 * dead-letter topic with {@link #getMessage()} as reason.
 *
 * <p>Problems of the Schema Registry itself (unreachable, timeout, HTTP 5xx) are reported as
 * {@link io.ata.schemas.registry.SchemaRegistryException} instead, because those records are
 * fine and must not be dead-lettered.
 *
 * <p>Kafka's consumer wraps exceptions of a deserializer in a
 * {@code RecordDeserializationException} (with topic, partition and offset); look at its cause.
 */
public class SerializationFormatException extends SerializationException {

    private static final long serialVersionUID = 1L;

    /** Why the bytes were rejected, for metrics and dead-letter records. */
    public enum Reason {
        /** Fewer bytes than the 5-byte header (includes an empty record). */
        TOO_SHORT,
        /** The first byte is not 0: not Schema Registry wire format (e.g. JSON starts with 0x7b). */
        UNKNOWN_MAGIC_BYTE,
        /** The header names a schema id the registry does not have. */
        UNKNOWN_SCHEMA_ID,
        /** The writer schema cannot be read as the expected record type. */
        INCOMPATIBLE_SCHEMA,
        /** The Avro body does not decode with the writer schema (truncated, corrupt, extra bytes). */
        MALFORMED_BODY
    }

    private final Reason reason;

    public SerializationFormatException(Reason reason, String message) {
        this(reason, message, null);
    }

    public SerializationFormatException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** Why the bytes were rejected. */
    public Reason reason() {
        return reason;
    }
}
