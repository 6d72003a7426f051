package io.ata.schemas.decoding;

import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaRegistryException;
import java.util.Objects;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Decodes the raw value of a record, or says why it is no record of the expected type. The parts
 * read raw bytes and decode them with this, rather than in the consumer, so that one bad record
 * goes to the dead-letter topic instead of stopping them.
 *
 * <p>What counts as a bad record: a tombstone (no value) where a record is expected, and bytes
 * the deserializer rejects ({@link SerializationException}, e.g. no Schema Registry wire format, a
 * schema id the registry does not have, a malformed body). A Schema Registry <em>outage</em> (the
 * registry unreachable or answering with an error other than "not found") is not the record's
 * fault: its exception is thrown, so the caller reads the record again once the registry is back.
 *
 * @param <V> the record type expected
 */
public final class RecordDecoder<V> {
    private final Deserializer<V> deserializer;
    private final String what;

    /**
     * @param deserializer the value deserializer of the topic
     * @param what what the record is, for the reasons: e.g. {@code "heartbeat"} gives
     *     "cannot decode heartbeat: ..." and "empty heartbeat (tombstone)"
     */
    public RecordDecoder(Deserializer<V> deserializer, String what) {
        this.deserializer = Objects.requireNonNull(deserializer, "deserializer");
        this.what = Objects.requireNonNull(what, "what");
    }

    /**
     * The record in {@code value}, read from {@code topic}, or why it cannot be one.
     *
     * @throws SchemaRegistryException if the Schema Registry could not be asked (not the record's fault)
     */
    public Decoded<V> decode(String topic, byte[] value) {
        if (value == null) {
            return new Decoded.Undecodable<>("empty " + what + " (tombstone)", null);
        }
        try {
            return new Decoded.Valid<>(deserializer.deserialize(topic, value));
        } catch (SchemaNotFoundException e) {
            return undecodable(e); // the record names a schema the registry does not have
        } catch (SerializationException e) {
            SchemaRegistryException outage = registryOutage(e);
            if (outage != null) {
                throw outage;
            }
            return undecodable(e);
        }
    }

    private Decoded<V> undecodable(RuntimeException e) {
        return new Decoded.Undecodable<>("cannot decode " + what + ": " + e.getMessage(), e);
    }

    /** A registry failure other than "not found" behind {@code e}, from a deserializer that wraps it; else null. */
    private static SchemaRegistryException registryOutage(Throwable e) {
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof SchemaRegistryException registry && !(cause instanceof SchemaNotFoundException)) {
                return registry;
            }
        }
        return null;
    }
}
