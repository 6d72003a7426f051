package io.ata.schemas.decoding;

/**
 * What the raw value of a record turned out to be ({@link RecordDecoder}): a record to use, or a
 * reason to dead-letter it.
 *
 * @param <V> the record type expected
 */
public sealed interface Decoded<V> {

    /** A record, decoded. Its content is not yet checked: that is the caller's to do. */
    record Valid<V>(V record) implements Decoded<V> {}

    /**
     * Bytes that are no record of the expected type: dead-letter them with {@code reason}.
     *
     * @param reason why, for a human and the dead letter
     * @param error the deserializer's exception, or {@code null} for a tombstone
     */
    record Undecodable<V>(String reason, Throwable error) implements Decoded<V> {}
}
