package io.ata.schemas.registry;

import java.util.Optional;
import org.apache.avro.Schema;

/**
 * The few Schema Registry operations the serdes and tools need.
 *
 * <p>Vocabulary: a <em>subject</em> (e.g. {@code ata.timings-value}) has numbered
 * <em>versions</em>; each version is a schema with a registry-wide <em>id</em>. The id is what
 * travels in every Kafka record, and an id never changes meaning.
 *
 * <p>Caching, which implementations must follow so callers can call these on every record:
 * <ul>
 *   <li>{@link #register} and {@link #lookup} results are cached per (subject, schema): a schema
 *       once registered keeps its id under that subject for good.</li>
 *   <li>{@link #getById} results are cached forever, since ids are immutable.</li>
 *   <li>{@link #latest} is <em>not</em> cached: a new version can be registered at any time.</li>
 * </ul>
 *
 * <p>Compatibility is the registry's business: a Confluent registry, and our
 * {@link EmbeddedSchemaRegistry}, reject a new version that breaks the configured compatibility
 * level (BACKWARD by default) with HTTP 409, {@code error_code} 409. Our evolution rule, every
 * new field gets a default, keeps our schemas BACKWARD compatible.
 *
 * <p>Failures are unchecked: {@link SchemaNotFoundException} when a subject or id does not
 * exist, {@link SchemaRegistryException} for everything else.
 */
public interface SchemaRegistryClient {

    /**
     * Registers {@code schema} under {@code subject} (a no-op if it is already a version there)
     * and returns its global id.
     */
    int register(String subject, Schema schema);

    /**
     * The version of {@code subject} whose schema is {@code schema}, if it is registered there;
     * unlike {@link #register} this never writes, so it works with read-only credentials.
     */
    Optional<SchemaVersion> lookup(String subject, Schema schema);

    /**
     * The schema with global id {@code id}.
     *
     * @throws SchemaNotFoundException if the registry has no such id
     */
    Schema getById(int id);

    /**
     * The newest version of {@code subject}.
     *
     * @throws SchemaNotFoundException if the subject has no versions
     */
    SchemaVersion latest(String subject);
}
