package io.ata.schemas.registry;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.SchemaParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Schema Registry inside this JVM, for tests, demos and deployments without a real one.
 *
 * <p>Use it directly as a {@link SchemaRegistryClient} (no HTTP involved), and optionally serve
 * it over HTTP ({@code io.ata.platform.registry.SchemaRegistryServer}), the Confluent REST subset
 * on loopback, so a {@link RestSchemaRegistryClient}, another process, Confluent's own clients or
 * {@code curl} can read the topics' schemas:
 * <pre>
 *   GET  /subjects                          ["ata.tasks-value", ...]
 *   GET  /subjects/{subject}/versions       [1, 2]
 *   GET  /subjects/{subject}/versions/{n|latest}  {subject, version, id, schema}
 *   POST /subjects/{subject}/versions       {"schema": "..."} → {"id": N}
 *   POST /subjects/{subject}                {"schema": "..."} → {subject, version, id, schema}
 *   GET  /schemas/ids/{id}                  {"schema": "..."}
 *   GET  /config                            {"compatibilityLevel": "BACKWARD"}
 *   PUT  /config                            {"compatibility": "FULL"} → {"compatibility": "FULL"}
 *   GET  /config/{subject}                  {"compatibilityLevel": ...} (40408 if not set)
 *   PUT  /config/{subject}                  {"compatibility": "NONE"} → {"compatibility": "NONE"}
 *   POST /compatibility/subjects/{subject}/versions/{n|latest}  {"schema": "..."}
 *                                           → {"is_compatible": true|false, "messages": [...]}
 * </pre>
 *
 * <p>Ids behave like Confluent's: assigned 1, 2, 3... per distinct schema (compared by its JSON
 * form, {@link Schema#toString()}), global across subjects, so registering a schema already known
 * under another subject reuses its id, and registering the same schema twice under a subject
 * returns the same id without adding a version.
 *
 * <p>Compatibility as Confluent's: a new version must keep the subject's
 * {@link CompatibilityLevel} (the subject's own, else the global one, {@code BACKWARD} unless set)
 * against the earlier versions, or registering it fails with HTTP 409, {@code error_code} 409.
 *
 * <p>Storage: {@link #EmbeddedSchemaRegistry() new EmbeddedSchemaRegistry()} keeps everything in
 * memory (for units); {@link #persistent} keeps it in a compacted Kafka topic
 * ({@link KafkaSchemaLog}), reads that topic to its end before it serves, and so serves the same
 * ids and versions after a restart. One persistent registry per topic writes at a time.
 *
 * <p>To let serdes configured from properties find it, {@link #bind(String) bind} it to a name
 * and set {@code schema.registry.url=embedded://NAME}.
 *
 * <p>Thread-safe: all state is guarded by this object's lock.
 */
public final class EmbeddedSchemaRegistry implements SchemaRegistryClient, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedSchemaRegistry.class);

    /** Instances reachable as {@code embedded://NAME}. */
    private static final Map<String, EmbeddedSchemaRegistry> BOUND = new ConcurrentHashMap<>();

    private final Map<Integer, Schema> schemasById = new HashMap<>();
    private final Map<String, Integer> idsBySchemaJson = new HashMap<>();
    /** Per subject, the schema id of each version number. */
    private final Map<String, SortedMap<Integer, Integer>> versionsBySubject = new TreeMap<>();

    private final Map<String, CompatibilityLevel> subjectLevels = new HashMap<>();
    private CompatibilityLevel globalLevel = CompatibilityLevel.DEFAULT;

    /** Where writes go before they take effect; null when in memory only. */
    private KafkaSchemaLog schemaLog;

    private boolean closed;
    private String boundName;

    /** An empty registry in memory only. */
    public EmbeddedSchemaRegistry() {}

    /**
     * A registry kept in the compacted Kafka topic {@code topic}: creates the topic if it does not
     * exist and reads it to its end, so it knows every schema, id and level written to it before.
     * Not serving HTTP.
     *
     * @param kafkaClientConfig Kafka client settings: bootstrap servers and any security settings
     * @throws SchemaRegistryException if the cluster cannot be reached or the topic is unfit
     */
    public static EmbeddedSchemaRegistry persistent(Map<String, Object> kafkaClientConfig, String topic) {
        Objects.requireNonNull(topic, "topic");
        EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
        synchronized (registry) {
            registry.schemaLog = KafkaSchemaLog.open(kafkaClientConfig, topic, registry::apply);
        }
        return registry;
    }

    // ---- registry operations --------------------------------------------------------------

    /**
     * {@inheritDoc}
     *
     * @throws SchemaRegistryException with HTTP status and error code 409
     *     if the schema breaks the subject's compatibility level
     */
    @Override
    public synchronized int register(String subject, Schema schema) {
        requireSubject(subject);
        Objects.requireNonNull(schema, "schema");
        Optional<SchemaVersion> known = lookup(subject, schema);
        if (known.isPresent()) {
            return known.get().id();
        }
        List<String> problems = incompatibilities(subject, schema);
        if (!problems.isEmpty()) {
            throw new SchemaRegistryException(
                    "Schema being registered is incompatible with an earlier schema for subject \"" + subject
                            + "\" (compatibility " + compatibilityOf(subject) + "), details: " + problems,
                    RegistryProtocol.INCOMPATIBLE_SCHEMA,
                    RegistryProtocol.INCOMPATIBLE_SCHEMA);
        }
        String json = schema.toString();
        int id = idsBySchemaJson.getOrDefault(json, nextId());
        SortedMap<Integer, Integer> versions = versionsBySubject.get(subject);
        int version = versions == null ? 1 : versions.lastKey() + 1;
        write(new SchemaLogRecord.SchemaEntry(subject, version, id, json));
        return lookup(subject, schema)
                .orElseThrow(() -> new SchemaRegistryException(
                        "the schemas topic did not take version " + version + " of " + subject
                                + "; is another registry writing to it?",
                        null))
                .id();
    }

    @Override
    public synchronized Optional<SchemaVersion> lookup(String subject, Schema schema) {
        Integer id = idsBySchemaJson.get(schema.toString());
        SortedMap<Integer, Integer> versions = versionsBySubject.get(subject);
        if (id == null || versions == null) {
            return Optional.empty();
        }
        return versions.entrySet().stream()
                .filter(v -> v.getValue().equals(id))
                .findFirst()
                .map(v -> new SchemaVersion(subject, v.getKey(), id, schemasById.get(id)));
    }

    @Override
    public synchronized Schema getById(int id) {
        Schema schema = schemasById.get(id);
        if (schema == null) {
            throw new SchemaNotFoundException("Schema " + id + " not found", RegistryProtocol.SCHEMA_NOT_FOUND);
        }
        return schema;
    }

    @Override
    public synchronized SchemaVersion latest(String subject) {
        return version(subject, versionsOf(subject).lastKey());
    }

    /**
     * Version {@code version} (1-based) of {@code subject}.
     *
     * @throws SchemaNotFoundException if the subject or the version does not exist
     */
    public synchronized SchemaVersion version(String subject, int version) {
        Integer id = versionsOf(subject).get(version);
        if (id == null) {
            throw new SchemaNotFoundException(
                    "Version " + version + " not found for subject '" + subject + "'",
                    RegistryProtocol.VERSION_NOT_FOUND);
        }
        return new SchemaVersion(subject, version, id, schemasById.get(id));
    }

    /** All subjects with at least one version, sorted. */
    public synchronized List<String> subjects() {
        return List.copyOf(versionsBySubject.keySet());
    }

    /**
     * The version numbers of {@code subject}, ascending: 1..n.
     *
     * @throws SchemaNotFoundException if the subject does not exist
     */
    public synchronized List<Integer> versions(String subject) {
        return List.copyOf(versionsOf(subject).keySet());
    }

    private SortedMap<Integer, Integer> versionsOf(String subject) {
        SortedMap<Integer, Integer> versions = versionsBySubject.get(subject);
        if (versions == null) {
            throw new SchemaNotFoundException(
                    "Subject '" + subject + "' not found.", RegistryProtocol.SUBJECT_NOT_FOUND);
        }
        return versions;
    }

    private int nextId() {
        return schemasById.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1;
    }

    private static void requireSubject(String subject) {
        if (subject == null || subject.isBlank()) {
            throw new IllegalArgumentException("subject must not be empty");
        }
    }

    // ---- compatibility --------------------------------------------------------------------

    /** The global compatibility level: that of every subject without its own. */
    public synchronized CompatibilityLevel compatibility() {
        return globalLevel;
    }

    /** Sets the global compatibility level. */
    public synchronized void setCompatibility(CompatibilityLevel level) {
        write(new SchemaLogRecord.ConfigEntry(null, Objects.requireNonNull(level, "level")));
    }

    /** The compatibility level set for {@code subject} itself, if any. */
    public synchronized Optional<CompatibilityLevel> compatibility(String subject) {
        return Optional.ofNullable(subjectLevels.get(subject));
    }

    /** Sets the compatibility level of {@code subject}, which need not have versions yet. */
    public synchronized void setCompatibility(String subject, CompatibilityLevel level) {
        requireSubject(subject);
        write(new SchemaLogRecord.ConfigEntry(subject, Objects.requireNonNull(level, "level")));
    }

    /** The level that applies to {@code subject}: its own, else the global one. */
    public synchronized CompatibilityLevel compatibilityOf(String subject) {
        return subjectLevels.getOrDefault(subject, globalLevel);
    }

    /**
     * Why registering {@code schema} under {@code subject} would be refused: empty if it would be
     * accepted (also when the subject has no versions yet).
     */
    public synchronized List<String> incompatibilities(String subject, Schema schema) {
        SortedMap<Integer, Integer> versions = versionsBySubject.get(subject);
        if (versions == null) {
            return List.of();
        }
        List<Schema> earlier = versions.values().stream().map(schemasById::get).toList();
        return compatibilityOf(subject).incompatibilities(schema, earlier);
    }

    /**
     * Why {@code schema} is not compatible with version {@code version} of {@code subject} at the
     * subject's level: empty if it is.
     *
     * @throws SchemaNotFoundException if the subject or the version does not exist
     */
    public synchronized List<String> incompatibilities(String subject, int version, Schema schema) {
        return compatibilityOf(subject)
                .incompatibilities(schema, List.of(version(subject, version).schema()));
    }

    // ---- state changes --------------------------------------------------------------------

    /** Makes {@code entry} take effect: through the Kafka topic if persistent, else at once. */
    private void write(SchemaLogRecord entry) {
        if (schemaLog == null) {
            if (closed) {
                throw new IllegalStateException("the embedded Schema Registry is closed");
            }
            apply(entry);
        } else {
            schemaLog.append(entry, this::apply);
        }
    }

    /**
     * The one place the state changes: an entry written by this registry, or read from its topic.
     * An entry that contradicts what is known (a second writer) is skipped, never applied halfway.
     */
    private void apply(SchemaLogRecord entry) {
        if (entry instanceof SchemaLogRecord.SchemaEntry version) {
            applyVersion(version);
        } else if (entry instanceof SchemaLogRecord.ConfigEntry config) {
            if (config.subject() == null) {
                globalLevel = config.level();
            } else {
                subjectLevels.put(config.subject(), config.level());
            }
        }
    }

    private void applyVersion(SchemaLogRecord.SchemaEntry entry) {
        Schema schema;
        try {
            schema = SchemaParser.parseSingle(entry.schema());
        } catch (SchemaParseException e) {
            log.warn(
                    "skipped {} version {}: its schema does not parse: {}",
                    entry.subject(),
                    entry.version(),
                    e.getMessage());
            return;
        }
        String json = schema.toString();
        Schema sameId = schemasById.get(entry.id());
        Integer sameSchema = idsBySchemaJson.get(json);
        SortedMap<Integer, Integer> versions = versionsBySubject.get(entry.subject());
        Integer sameVersion = versions == null ? null : versions.get(entry.version());
        if ((sameId != null && !sameId.toString().equals(json))
                || (sameSchema != null && sameSchema != entry.id())
                || (sameVersion != null && sameVersion != entry.id())) {
            log.warn(
                    "skipped {} version {}: id {} contradicts an earlier entry (two registries writing?)",
                    entry.subject(),
                    entry.version(),
                    entry.id());
            return;
        }
        schemasById.put(entry.id(), schema);
        idsBySchemaJson.put(json, entry.id());
        versionsBySubject.computeIfAbsent(entry.subject(), s -> new TreeMap<>()).put(entry.version(), entry.id());
        log.debug(
                "subject {} version {} = schema id {} ({})",
                entry.subject(),
                entry.version(),
                entry.id(),
                schema.getFullName());
    }

    // ---- names ----------------------------------------------------------------------------

    /**
     * Makes this registry reachable as {@code embedded://name} in this JVM, for serdes configured
     * from properties. Released by {@link #close()}.
     *
     * @throws IllegalStateException if another registry already has that name
     */
    public synchronized EmbeddedSchemaRegistry bind(String name) {
        Objects.requireNonNull(name, "name");
        EmbeddedSchemaRegistry holder = BOUND.putIfAbsent(name, this);
        if (holder != null && holder != this) {
            throw new IllegalStateException("an embedded Schema Registry is already bound to the name '" + name + "'");
        }
        if (boundName != null && !boundName.equals(name)) {
            BOUND.remove(boundName, this);
        }
        boundName = name;
        return this;
    }

    /** The registry bound to {@code name} in this JVM, if any. */
    public static Optional<EmbeddedSchemaRegistry> bound(String name) {
        return Optional.ofNullable(BOUND.get(name));
    }

    /**
     * Releases the bound name, if any, and closes the Kafka clients of a persistent registry. The
     * schemas stay readable; a persistent registry takes no more writes.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (boundName != null) {
                BOUND.remove(boundName, this);
                boundName = null;
            }
            if (schemaLog != null) {
                schemaLog.close();
                schemaLog = null;
                closed = true;
            }
        }
    }
}
