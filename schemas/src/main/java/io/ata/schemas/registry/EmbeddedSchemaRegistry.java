package io.ata.schemas.registry;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Schema Registry inside this JVM, for tests, demos and single-process runs without a real one.
 *
 * <p>Use it directly as a {@link SchemaRegistryClient} (no HTTP involved), and optionally
 * {@link #start()} it to also serve the Confluent REST subset on loopback, so a
 * {@link RestSchemaRegistryClient}, a process started by a test, or {@code curl} can read the
 * topics' schemas:
 * <pre>
 *   GET  /subjects                          ["ata.tasks-value", ...]
 *   GET  /subjects/{subject}/versions       [1, 2]
 *   GET  /subjects/{subject}/versions/{n|latest}  {subject, version, id, schema}
 *   POST /subjects/{subject}/versions       {"schema": "..."} → {"id": N}
 *   POST /subjects/{subject}                {"schema": "..."} → {subject, version, id, schema}
 *   GET  /schemas/ids/{id}                  {"schema": "..."}
 * </pre>
 *
 * <p>Ids behave like Confluent's: assigned 1, 2, 3... per distinct schema (compared by its JSON
 * form, {@link Schema#toString()}), global across subjects, so registering a schema already known
 * under another subject reuses its id, and registering the same schema twice under a subject
 * returns the same id without adding a version.
 *
 * <p>Compatibility: unlike a real registry, which rejects a version that breaks its configured
 * compatibility level (BACKWARD by default), this one accepts any new version. Keep to our
 * evolution rule (new fields get defaults) so a real registry accepts the same sequence.
 *
 * <p>To let serdes configured from properties find it, {@link #bind(String) bind} it to a name
 * and set {@code schema.registry.url=embedded://NAME}.
 *
 * <p>Thread-safe: all state is guarded by this object's lock. Nothing is persisted.
 */
public final class EmbeddedSchemaRegistry implements SchemaRegistryClient, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedSchemaRegistry.class);

    /** Instances reachable as {@code embedded://NAME}. */
    private static final Map<String, EmbeddedSchemaRegistry> BOUND = new ConcurrentHashMap<>();

    private final Map<Integer, Schema> schemasById = new HashMap<>();
    private final Map<String, Integer> idsBySchemaJson = new HashMap<>();
    /** Per subject, the schema id of each version: version n is element n - 1. */
    private final Map<String, List<Integer>> versionsBySubject = new TreeMap<>();

    private HttpServer server;
    private String boundName;

    /** An empty registry, not serving HTTP until {@link #start()}. */
    public EmbeddedSchemaRegistry() {}

    // ---- registry operations --------------------------------------------------------------

    @Override
    public synchronized int register(String subject, Schema schema) {
        requireSubject(subject);
        Objects.requireNonNull(schema, "schema");
        int id = idsBySchemaJson.computeIfAbsent(schema.toString(), json -> schemasById.size() + 1);
        schemasById.putIfAbsent(id, schema);
        List<Integer> versions = versionsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
        if (!versions.contains(id)) {
            versions.add(id);
            log.debug("subject {} version {} = schema id {} ({})", subject, versions.size(), id, schema.getFullName());
        }
        return id;
    }

    @Override
    public synchronized Optional<SchemaVersion> lookup(String subject, Schema schema) {
        Integer id = idsBySchemaJson.get(schema.toString());
        List<Integer> versions = versionsBySubject.get(subject);
        if (id == null || versions == null || !versions.contains(id)) {
            return Optional.empty();
        }
        return Optional.of(new SchemaVersion(subject, versions.indexOf(id) + 1, id, schema));
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
        return version(subject, versionsOf(subject).size());
    }

    /**
     * Version {@code version} (1-based) of {@code subject}.
     *
     * @throws SchemaNotFoundException if the subject or the version does not exist
     */
    public synchronized SchemaVersion version(String subject, int version) {
        List<Integer> versions = versionsOf(subject);
        if (version < 1 || version > versions.size()) {
            throw new SchemaNotFoundException(
                    "Version " + version + " not found for subject '" + subject + "'",
                    RegistryProtocol.VERSION_NOT_FOUND);
        }
        int id = versions.get(version - 1);
        return new SchemaVersion(subject, version, id, schemasById.get(id));
    }

    /** All subjects with at least one version, sorted. */
    public synchronized List<String> subjects() {
        return List.copyOf(versionsBySubject.keySet());
    }

    /**
     * The version numbers of {@code subject}: 1..n.
     *
     * @throws SchemaNotFoundException if the subject does not exist
     */
    public synchronized List<Integer> versions(String subject) {
        int count = versionsOf(subject).size();
        List<Integer> numbers = new ArrayList<>(count);
        for (int v = 1; v <= count; v++) {
            numbers.add(v);
        }
        return numbers;
    }

    private List<Integer> versionsOf(String subject) {
        List<Integer> versions = versionsBySubject.get(subject);
        if (versions == null) {
            throw new SchemaNotFoundException(
                    "Subject '" + subject + "' not found.", RegistryProtocol.SUBJECT_NOT_FOUND);
        }
        return versions;
    }

    private static void requireSubject(String subject) {
        if (subject == null || subject.isBlank()) {
            throw new IllegalArgumentException("subject must not be empty");
        }
    }

    // ---- HTTP -----------------------------------------------------------------------------

    /** Serves the REST API on an ephemeral loopback port; see {@link #url()}. */
    public EmbeddedSchemaRegistry start() {
        return start(0);
    }

    /**
     * Serves the REST API on {@code 127.0.0.1:port} (0 = any free port). Does nothing if already
     * serving.
     *
     * @throws UncheckedIOException if the port cannot be bound
     */
    public synchronized EmbeddedSchemaRegistry start(int port) {
        if (server != null) {
            return this;
        }
        try {
            HttpServer created = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 0);
            created.createContext("/", new RegistryHttpHandler(this));
            created.start();
            server = created;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve the embedded Schema Registry on port " + port, e);
        }
        log.info("embedded Schema Registry serving at {}", url());
        return this;
    }

    /**
     * The base URL, {@code http://127.0.0.1:PORT}, to give a {@link RestSchemaRegistryClient} or
     * another process.
     *
     * @throws IllegalStateException if not {@link #start() started}
     */
    public synchronized String url() {
        if (server == null) {
            throw new IllegalStateException("the embedded Schema Registry is not serving HTTP; call start()");
        }
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Whether the REST API is being served. */
    public synchronized boolean isServing() {
        return server != null;
    }

    /** Stops serving HTTP; the registered schemas are kept and it can be started again. */
    public void stop() {
        HttpServer stopping;
        synchronized (this) {
            stopping = server;
            server = null;
        }
        // outside the lock: HttpServer.stop waits for its dispatcher thread, which may be running a
        // request that is itself waiting for this registry's lock
        if (stopping != null) {
            stopping.stop(0);
        }
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

    /** Stops serving HTTP and releases the bound name, if any. */
    @Override
    public void close() {
        stop();
        synchronized (this) {
            if (boundName != null) {
                BOUND.remove(boundName, this);
                boundName = null;
            }
        }
    }
}
