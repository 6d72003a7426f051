package io.ata.platform.ops;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.ata.platform.http.Echo;
import io.ata.platform.http.ErrorFormat;
import io.ata.platform.http.JsonHttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What every part (broker, trainer, agent) answers to the tools that run it:
 * <ul>
 *   <li>{@code GET /metrics}: the process's meters, in the format the {@code Accept} header asks
 *       for (Prometheus text, or OpenMetrics), as {@link Metrics} renders them;</li>
 *   <li>{@code GET /health}: liveness, 200 while the part's loop is alive, else 503;</li>
 *   <li>{@code GET /ready}: readiness, 200 once the part does its work (the broker's Streams app
 *       runs, the trainer or agent has its partitions of its group), else 503.</li>
 * </ul>
 * The probes answer JSON ({@code {"status":"UP","detail":...}}); {@code HEAD} answers the same
 * status and headers without a body; another method is 405, another path 404, both with a JSON
 * {@code error}. The broker routes these paths of its query port here; the trainer and the agents
 * {@link #serve(String, int) serve} them on a port of their own, a {@link JsonHttpServer} with its
 * limits.
 */
public final class OperationsEndpoints implements HttpHandler {
    /** The paths answered here. */
    public static final Set<String> PATHS = Set.of("/metrics", "/health", "/ready");

    private static final String JSON = "application/json";
    /** Requests of the stand-alone server handled at once (a scrape and a probe or two). */
    private static final int THREADS = 2;

    /** Renders the process's meters for an {@code Accept} header (null if the request has none). */
    @FunctionalInterface
    public interface Metrics {
        Exposition scrape(String accept);
    }

    /** A rendering of the meters and its content type. */
    public record Exposition(String contentType, String body) {}

    /** A probe's answer: up or not, and a word on why (e.g. the Kafka Streams state). */
    public record Probe(boolean up, String detail) {
        public static Probe up(String detail) {
            return new Probe(true, detail);
        }

        public static Probe down(String detail) {
            return new Probe(false, detail);
        }
    }

    private final Metrics metrics;
    private final Supplier<Probe> health;
    private final Supplier<Probe> ready;
    private final ObjectMapper json = new ObjectMapper();

    public OperationsEndpoints(Metrics metrics, Supplier<Probe> health, Supplier<Probe> ready) {
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.health = Objects.requireNonNull(health, "health");
        this.ready = Objects.requireNonNull(ready, "ready");
    }

    /** Whether {@code path} is one of {@link #PATHS} (a trailing slash allowed). */
    public static boolean serves(String path) {
        return PATHS.contains(normalize(path));
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = normalize(exchange.getRequestURI().getPath());
            if (!PATHS.contains(path)) {
                send(
                        exchange,
                        404,
                        JSON,
                        error("not found: "
                                + Echo.bounded(exchange.getRequestURI().getPath())));
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                send(exchange, 405, JSON, error("only GET and HEAD are supported, not " + Echo.bounded(method)));
            } else if (path.equals("/metrics")) {
                Exposition e = metrics.scrape(exchange.getRequestHeaders().getFirst("Accept"));
                send(exchange, 200, e.contentType(), e.body());
            } else {
                Probe p = (path.equals("/health") ? health : ready).get();
                ObjectNode body = json.createObjectNode().put("status", p.up() ? "UP" : "DOWN");
                body.put("detail", p.detail());
                send(exchange, p.up() ? 200 : 503, JSON, write(body));
            }
        }
    }

    /**
     * Serves these endpoints alone on {@code host:port} (port 0: any free port), from now until
     * the returned server is closed.
     */
    public Server serve(String host, int port) {
        // few threads: probes and scrapes are short, and a slow scrape must not start a pile of threads
        JsonHttpServer server = JsonHttpServer.bind(
                "ata-operations-http", new InetSocketAddress(host, port), THREADS, ErrorFormat.ERROR_FIELD, this);
        return new Server(server.start());
    }

    /** A running server of the endpoints; {@link #close()} stops it. */
    public static final class Server implements AutoCloseable {
        private final JsonHttpServer server;

        private Server(JsonHttpServer server) {
            this.server = server;
        }

        /** The port it listens on (the actual one when 0 was asked for). */
        public int port() {
            return server.port();
        }

        /** {@code http://host:port}. */
        public String url() {
            return "http://" + server.host() + ":" + port();
        }

        @Override
        public void close() {
            server.close();
        }
    }

    private static String normalize(String path) {
        String p = path == null || path.isEmpty() ? "/" : path;
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    private String error(String message) {
        return write(json.createObjectNode().put("error", message));
    }

    private String write(ObjectNode node) {
        try {
            return json.writeValueAsString(node) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // a tree of strings always serialises
        }
    }

    private static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", contentType);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        if (head) {
            exchange.getResponseHeaders().set("Content-Length", Integer.toString(bytes.length));
        }
        exchange.sendResponseHeaders(status, head || bytes.length == 0 ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
