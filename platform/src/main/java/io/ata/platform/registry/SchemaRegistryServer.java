package io.ata.platform.registry;

import io.ata.platform.http.ErrorFormat;
import io.ata.platform.http.JsonHttpServer;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.RegistryProtocol;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves an {@link EmbeddedSchemaRegistry} over HTTP on loopback: the subset of Confluent's REST
 * API that {@link RegistryHttpHandler} answers, so a {@code RestSchemaRegistryClient}, another
 * process, Confluent's own clients or {@code curl} read the same schemas and ids.
 *
 * <p>Closing the server stops HTTP only; the registry and its schemas stay with their owner.
 */
public final class SchemaRegistryServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SchemaRegistryServer.class);

    /** Requests served at once: schema look-ups are short and clients cache what they read. */
    private static final int HTTP_THREADS = 4;

    private final EmbeddedSchemaRegistry registry;
    private final JsonHttpServer server;

    private SchemaRegistryServer(EmbeddedSchemaRegistry registry, JsonHttpServer server) {
        this.registry = registry;
        this.server = server;
    }

    /** Serves {@code registry} on an ephemeral loopback port; see {@link #url()}. */
    public static SchemaRegistryServer start(EmbeddedSchemaRegistry registry) {
        return start(registry, 0);
    }

    /**
     * Serves {@code registry} on {@code 127.0.0.1:port} (0 = any free port).
     *
     * @throws UncheckedIOException if the port cannot be bound
     */
    public static SchemaRegistryServer start(EmbeddedSchemaRegistry registry, int port) {
        Objects.requireNonNull(registry, "registry");
        JsonHttpServer server = JsonHttpServer.bind(
                        "ata-schema-registry-http",
                        new InetSocketAddress("127.0.0.1", port),
                        HTTP_THREADS,
                        ErrorFormat.confluent(RegistryProtocol.CONTENT_TYPE),
                        new RegistryHttpHandler(registry))
                .start();
        SchemaRegistryServer started = new SchemaRegistryServer(registry, server);
        log.info("embedded Schema Registry serving at {}", started.url());
        return started;
    }

    /** The base URL, {@code http://127.0.0.1:PORT}, to give a client or another process. */
    public String url() {
        return "http://127.0.0.1:" + server.port();
    }

    /** The port it serves on. */
    public int port() {
        return server.port();
    }

    /** The registry it serves. */
    public EmbeddedSchemaRegistry registry() {
        return registry;
    }

    /** Stops serving HTTP; the registry is left as it is. */
    @Override
    public void close() {
        server.close();
    }
}
