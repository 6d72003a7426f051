package io.ata.schemas.registry;

import static io.ata.schemas.registry.RegistryProtocol.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * One record of the registry's schemas topic, in the JSON layout of Confluent's {@code _schemas}
 * topic, so the topic reads the same to a person who knows that one:
 * <pre>
 *   key   {"keytype":"SCHEMA","subject":"ata.tasks-value","version":1,"magic":1}
 *   value {"subject":"ata.tasks-value","version":1,"id":1,"schema":"{...}","deleted":false}
 *
 *   key   {"keytype":"CONFIG","subject":null,"magic":0}         (null subject: the global level)
 *   value {"compatibilityLevel":"BACKWARD"}
 * </pre>
 * The key names what the value replaces, so compaction keeps every version and the latest level.
 */
sealed interface SchemaLogRecord {

    /** The record's key bytes: deterministic, since compaction compares them. */
    byte[] key();

    /** The record's value bytes. */
    byte[] value();

    /** Version {@code version} of {@code subject} is the schema with global id {@code id}. */
    record SchemaEntry(String subject, int version, int id, String schema) implements SchemaLogRecord {
        public SchemaEntry {
            Objects.requireNonNull(subject, "subject");
            Objects.requireNonNull(schema, "schema");
        }

        @Override
        public byte[] key() {
            return bytes(keyOf("SCHEMA", subject).put("version", version).put("magic", 1));
        }

        @Override
        public byte[] value() {
            ObjectNode value = JSON.createObjectNode();
            value.put("subject", subject);
            value.put("version", version);
            value.put("id", id);
            value.put("schema", schema);
            value.put("deleted", false);
            return bytes(value);
        }
    }

    /** The compatibility level of {@code subject}, or the global one if {@code subject} is null. */
    record ConfigEntry(String subject, CompatibilityLevel level) implements SchemaLogRecord {
        public ConfigEntry {
            Objects.requireNonNull(level, "level");
        }

        @Override
        public byte[] key() {
            return bytes(keyOf("CONFIG", subject).put("magic", 0));
        }

        @Override
        public byte[] value() {
            ObjectNode value = JSON.createObjectNode();
            value.put("compatibilityLevel", level.name());
            return bytes(value);
        }
    }

    /**
     * The entry a record of the topic holds; empty for the kinds this registry does not use (such
     * as Confluent's NOOP or DELETE_SUBJECT keys) and for tombstones.
     *
     * @throws IllegalArgumentException if the record is not JSON of the layout above
     */
    static Optional<SchemaLogRecord> decode(byte[] key, byte[] value) {
        if (key == null || value == null) {
            return Optional.empty();
        }
        JsonNode k = parse(key, "key");
        JsonNode v = parse(value, "value");
        return switch (k.path("keytype").asText("")) {
            case "SCHEMA" ->
                Optional.of(new SchemaEntry(
                        text(v, "subject"), integer(v, "version"), integer(v, "id"), text(v, "schema")));
            case "CONFIG" ->
                Optional.of(new ConfigEntry(
                        k.path("subject").isTextual() ? k.get("subject").asText() : null,
                        CompatibilityLevel.parse(text(v, "compatibilityLevel"))));
            default -> Optional.empty();
        };
    }

    /** A key's first fields, keytype then subject; the caller adds the rest in Confluent's order. */
    private static ObjectNode keyOf(String keytype, String subject) {
        ObjectNode key = JSON.createObjectNode();
        key.put("keytype", keytype);
        key.put("subject", subject);
        return key;
    }

    private static JsonNode parse(byte[] bytes, String what) {
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("the " + what + " is not a JSON object");
            }
            return node;
        } catch (IOException e) {
            throw new IllegalArgumentException("the " + what + " is not JSON: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode node, String field) {
        if (!node.path(field).isTextual()) {
            throw new IllegalArgumentException("no string field '" + field + "' in " + node);
        }
        return node.get(field).asText();
    }

    private static int integer(JsonNode node, String field) {
        if (!node.path(field).canConvertToInt() || !node.path(field).isIntegralNumber()) {
            throw new IllegalArgumentException("no integer field '" + field + "' in " + node);
        }
        return node.get(field).asInt();
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write a JSON tree", e);
        }
    }
}
