package io.ata.schemas.registry;

import java.util.Objects;
import org.apache.avro.Schema;

/**
 * One version of a subject: what {@code GET /subjects/{subject}/versions/latest} returns.
 *
 * @param subject the subject, e.g. {@code ata.tasks-value}
 * @param version 1-based version number within the subject
 * @param id the schema's global id, the one written into every record's header
 * @param schema the schema itself
 */
public record SchemaVersion(String subject, int version, int id, Schema schema) {
    public SchemaVersion {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(schema, "schema");
    }
}
