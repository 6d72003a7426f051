package io.ata.broker;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.ata.platform.http.Echo;
import io.ata.platform.http.ErrorFormat;
import io.ata.platform.http.JsonHttpServer;
import io.ata.platform.ops.OperationsEndpoints;
import io.ata.schemas.AllocationEntry;
import io.ata.schemas.JobState;
import io.ata.schemas.WorkerHeartbeat;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * Interactive queries over HTTP (JSON): what the broker knows, live.
 * <ul>
 *   <li>{@code GET /jobs}: every job of every instance, with its last opened and closed rounds and
 *       the instance hosting it; {@code ?scope=local}: only the jobs this instance hosts;</li>
 *   <li>{@code GET /jobs/{job}/stats}: per worker: active, tasks observed, mean and sd of compute time,
 *       the policy's lower confidence bound, tasks of the open round, status and device ({@link JobViews});</li>
 *   <li>{@code GET /jobs/{job}/history}: the job's last rounds: allocation matrix, round, busy and
 *       wasted time ({@link RoundHistory});</li>
 *   <li>{@code GET /}, {@code /ui/...}: the live web page over these queries ({@link WebPage});</li>
 *   <li>{@code GET /jobs/{job}/allocation}: the last allocation (round, worker, partition, task ids);</li>
 *   <li>{@code GET /workers}: membership: last heartbeat of every worker;</li>
 *   <li>{@code GET /metrics}, {@code /health}, {@code /ready}: the {@link OperationsEndpoints}
 *       (Prometheus text of the process's meters; alive; the Streams app RUNNING); with
 *       {@code Accept: application/json}, {@code /metrics} answers this instance's counters as JSON
 *       ({@link BrokerMetrics#snapshot()}): dead letters, ignored duplicates.</li>
 * </ul>
 * With several broker instances each hosts the jobs of its partitions of the rounds topic, and
 * any instance answers for every job, as in Kafka's interactive-queries examples: it asks Kafka
 * Streams which instance hosts the job ({@code application.server}, see {@link #endpoint()}),
 * answers itself if that is this one, else forwards the GET to the owner once (the
 * {@link #FORWARDED_HEADER} hop guard; see {@link QueryRoute}) and relays its status and body.
 * {@code /jobs} gathers the local lists of all instances. While the owner is not known or cannot
 * be reached the answer is 503 with {@code Retry-After}; every answer names the instance that
 * produced it in {@link #INSTANCE_HEADER}. {@code /workers} and {@code /metrics} stay local: the
 * membership is a global store, the same on every instance, and the metrics are per instance.
 *
 * <p>The server is a {@link JsonHttpServer}, with its limits (silent connections closed, sooner when
 * crowded; heads and bodies read without a thread and cut off when slow; a URL at most 8 KB, {@code HEAD}
 * as {@code GET}; JSON errors). It binds its port when constructed, so that the actual address (of port 0 too) can be
 * given to the {@link BrokerApp} it serves, and starts answering with {@link #start(BrokerApp)}
 * (503 until the app runs).
 */
public final class BrokerHttpServer implements AutoCloseable {
    /** Request header of a query forwarded by another instance ({@code host:port}): it is not forwarded again. */
    public static final String FORWARDED_HEADER = "X-ATA-Forwarded-By";
    /** Response header: the instance ({@code host:port}) that answered, also when relayed. */
    public static final String INSTANCE_HEADER = "X-ATA-Instance";
    /** How long a forwarded query may take, connecting included. */
    static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(3);

    private static final String RETRY_AFTER_SECONDS = "1";
    /** Requests run in parallel: one waiting for another instance must not hold up the others. */
    private static final int THREADS = 16;
    /** The queries of one job: {@code /jobs/{job}/<query>}, answered by the instance hosting it. */
    private static final Set<String> JOB_QUERIES = Set.of("stats", "allocation", "history");

    private final JsonHttpServer server;
    private final HostInfo endpoint;
    private final ObjectMapper json = new ObjectMapper();
    private volatile BrokerApp app;
    private volatile HostInfo self;
    private volatile RemoteInstances remote;
    private volatile OperationsEndpoints operations;
    private volatile JobViews views;
    private final WebPage page = new WebPage();

    /** Listens on {@code host:port} and advertises that address (see {@link #endpoint()}). */
    public BrokerHttpServer(String host, int port) {
        this(host, port, null);
    }

    /**
     * Binds {@code host:port} now (port 0: any free port); answers nothing before {@link #start(BrokerApp)}.
     *
     * @param advertisedHost the host other instances reach this one at; null or blank: {@code host},
     *                       or this machine's name if {@code host} is a wildcard address (0.0.0.0, ::)
     */
    public BrokerHttpServer(String host, int port, String advertisedHost) {
        InetSocketAddress address = new InetSocketAddress(host, port);
        this.server = JsonHttpServer.bind("ata-broker-http", address, THREADS, ErrorFormat.ERROR_FIELD, this::handle);
        try {
            this.endpoint = new HostInfo(advertised(address, host, advertisedHost), server.port());
        } catch (IllegalArgumentException e) {
            server.close();
            throw e;
        }
    }

    private static String advertised(InetSocketAddress bound, String host, String advertisedHost) {
        if (advertisedHost != null && !advertisedHost.isBlank()) {
            return advertisedHost;
        }
        if (bound.getAddress() != null && bound.getAddress().isAnyLocalAddress()) {
            try {
                return InetAddress.getLocalHost().getCanonicalHostName();
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(
                        "listening on " + host + " (all addresses), but this machine's "
                                + "name is unknown: give the address other instances reach this one at",
                        e);
            }
        }
        return host;
    }

    /**
     * The address other instances reach these queries at, with the actual port: give it to the
     * {@link BrokerApp} this server will serve, which advertises it as {@code application.server}.
     */
    public HostInfo endpoint() {
        return endpoint;
    }

    /**
     * Starts answering for {@code app}. If the app advertises an endpoint it must be this server's:
     * other instances forward queries there.
     */
    public BrokerHttpServer start(BrokerApp app) {
        return start(
                app,
                accept -> new OperationsEndpoints.Exposition(
                        "application/json", write(app.metrics().snapshot())));
    }

    /**
     * Starts answering for {@code app}, with {@code metrics} rendering {@code GET /metrics} (the
     * process's registry in Prometheus' text format); see {@link #start(BrokerApp)}.
     */
    public BrokerHttpServer start(BrokerApp app, OperationsEndpoints.Metrics metrics) {
        HostInfo advertised = app.endpoint().orElse(null);
        if (advertised != null && !advertised.equals(endpoint)) {
            throw new IllegalArgumentException("the broker advertises " + RemoteInstances.address(advertised)
                    + " but this server is " + RemoteInstances.address(endpoint));
        }
        this.app = app;
        this.views = new JobViews(
                json,
                app.settings(),
                worker -> app.membership().get(worker),
                app.metrics().recentRounds());
        this.operations = new OperationsEndpoints(metrics, () -> health(app), () -> ready(app));
        this.self = advertised;
        this.remote =
                advertised == null ? null : new RemoteInstances(RemoteInstances.address(advertised), FORWARD_TIMEOUT);
        server.start();
        return this;
    }

    public String url() {
        return "http://" + RemoteInstances.address(endpoint);
    }

    /** Alive unless the Streams app failed or stopped (starting and rebalancing are alive). */
    private static OperationsEndpoints.Probe health(BrokerApp app) {
        KafkaStreams.State s = app.state();
        boolean alive = s != KafkaStreams.State.ERROR
                && s != KafkaStreams.State.PENDING_ERROR
                && s != KafkaStreams.State.NOT_RUNNING
                && s != KafkaStreams.State.PENDING_SHUTDOWN;
        return new OperationsEndpoints.Probe(alive, "Kafka Streams " + s);
    }

    /** Ready when the Streams app is RUNNING: its tasks are assigned and restored. */
    private static OperationsEndpoints.Probe ready(BrokerApp app) {
        KafkaStreams.State s = app.state();
        return new OperationsEndpoints.Probe(s == KafkaStreams.State.RUNNING, "Kafka Streams " + s);
    }

    /** {@code /metrics} as JSON counters: asked for with {@code Accept: application/json}. */
    private static boolean wantsJsonCounters(HttpExchange exchange) {
        String accept = exchange.getRequestHeaders().getFirst("Accept");
        return accept != null && accept.contains("application/json");
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (WebPage.serves(path)) {
            sendPage(exchange, path);
            return;
        }
        if (OperationsEndpoints.serves(path) && !(path.startsWith("/metrics") && wantsJsonCounters(exchange))) {
            if (self != null) {
                exchange.getResponseHeaders().set(INSTANCE_HEADER, RemoteInstances.address(self));
            }
            operations.handle(exchange);
            return;
        }
        try (exchange) {
            QueryReply reply;
            try {
                reply = route(exchange);
            } catch (InvalidStateStoreException e) {
                reply = unavailable("stores not ready: " + e.getMessage());
            } catch (IllegalStateException e) {
                // Kafka Streams answers metadata questions only while running or rebalancing
                reply = unavailable("broker not running: " + e.getMessage());
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            if (reply.instance() != null) {
                exchange.getResponseHeaders().set(INSTANCE_HEADER, reply.instance());
            }
            if (reply.retry()) {
                exchange.getResponseHeaders().set("Retry-After", RETRY_AFTER_SECONDS);
            }
            exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(reply.body());
            }
        }
    }

    /** A file of the web page; it needs no running broker (its queries answer 503 until then). */
    private void sendPage(HttpExchange exchange, String path) throws IOException {
        try (exchange) {
            WebPage.Asset asset = page.asset(path).orElse(null);
            if (asset == null || !exchange.getRequestMethod().equals("GET")) {
                exchange.sendResponseHeaders(asset == null ? 404 : 405, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", asset.contentType());
            exchange.getResponseHeaders().set("Cache-Control", "no-cache");
            exchange.sendResponseHeaders(200, asset.body().length);
            exchange.getResponseBody().write(asset.body());
        }
    }

    private QueryReply route(HttpExchange exchange) {
        URI uri = exchange.getRequestURI();
        String[] path = uri.getPath().replaceAll("^/+|/+$", "").split("/");
        boolean forwarded = exchange.getRequestHeaders().containsKey(FORWARDED_HEADER);
        if (!exchange.getRequestMethod().equals("GET")) {
            return reply(405, error("only GET is supported"));
        }
        if (path.length == 1 && path[0].equals("jobs")) {
            String scope = scope(uri.getRawQuery());
            if (scope == null) {
                return reply(
                        400,
                        error("unknown query " + Echo.bounded(uri.getRawQuery())
                                + "; expected scope=local or scope=all"));
            }
            // A forwarded request is answered locally whatever it asks: one hop at most.
            return scope.equals("local") || forwarded || self == null ? reply(200, localJobs()) : allJobs();
        }
        if (path.length == 3 && path[0].equals("jobs") && JOB_QUERIES.contains(path[2])) {
            QueryRoute route = QueryRoute.of(self, app.ownerOf(path[1]), forwarded);
            if (route instanceof QueryRoute.Forward f) {
                return forward(f.owner(), uri.getRawPath());
            }
            if (route instanceof QueryRoute.Unavailable u) {
                return unavailable("job " + Echo.bounded(path[1]) + ": " + u.reason());
            }
            JobState s;
            try {
                s = app.jobs().get(path[1]);
            } catch (IllegalArgumentException unreadable) {
                return reply(500, error(Echo.bounded(unreadable.getMessage())));
            }
            if (s == null) {
                return reply(404, error("unknown job: " + Echo.bounded(path[1])));
            }
            return reply(
                    200,
                    switch (path[2]) {
                        case "stats" -> views.stats(s);
                        case "history" -> views.history(s);
                        default -> allocation(s);
                    });
        }
        if (path.length == 1 && path[0].equals("workers")) {
            return reply(200, workers());
        }
        if (path.length == 1 && path[0].equals("metrics")) {
            return reply(200, app.metrics().snapshot());
        }
        return reply(404, error("not found: " + Echo.bounded(uri.getPath())));
    }

    /** {@code local} or {@code all} (the default); null if the query asks for something else. */
    private static String scope(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty() || rawQuery.equals("scope=all")) {
            return "all";
        }
        return rawQuery.equals("scope=local") ? "local" : null;
    }

    /** Relays the owner's answer, status and body unchanged. */
    private QueryReply forward(HostInfo owner, String rawPath) {
        try {
            return remote.get(owner, rawPath).join();
        } catch (CompletionException e) {
            return unavailable("the instance hosting this job, " + RemoteInstances.address(owner) + ", did not answer: "
                    + describe(e.getCause()));
        }
    }

    /** The jobs of every instance hosting part of the jobs store: this one's, and the others' local lists. */
    private QueryReply allJobs() {
        Set<HostInfo> hosts = app.jobHosts();
        if (hosts.isEmpty()) {
            return unavailable("no instance hosts jobs yet (rebalancing?)");
        }
        Map<HostInfo, CompletableFuture<QueryReply>> asked = new LinkedHashMap<>();
        for (HostInfo host : hosts) {
            if (!host.equals(self)) {
                asked.put(host, remote.get(host, "/jobs?scope=local")); // in parallel
            }
        }
        List<JsonNode> jobs = new ArrayList<>();
        if (hosts.contains(self)) {
            localJobs().forEach(jobs::add);
        }
        for (Map.Entry<HostInfo, CompletableFuture<QueryReply>> e : asked.entrySet()) {
            String instance = RemoteInstances.address(e.getKey());
            QueryReply r;
            try {
                r = e.getValue().join();
            } catch (CompletionException failure) {
                return unavailable("instance " + instance + " did not answer: " + describe(failure.getCause()));
            }
            if (r.status() != 200) {
                return unavailable("instance " + instance + " answered " + r.status() + ": "
                        + new String(r.body(), StandardCharsets.UTF_8).strip());
            }
            try {
                json.readTree(r.body()).forEach(jobs::add);
            } catch (IOException bad) {
                return unavailable("instance " + instance + " answered something other than JSON: " + bad.getMessage());
            }
        }
        // During a rebalance two instances may both still list a job: keep one.
        Map<String, JsonNode> byJob = new TreeMap<>();
        jobs.forEach(j -> byJob.putIfAbsent(j.path("job").asText(), j));
        ArrayNode out = json.createArrayNode();
        byJob.values().forEach(out::add);
        return reply(200, out);
    }

    private ArrayNode localJobs() {
        ArrayNode jobs = json.createArrayNode();
        try (KeyValueIterator<String, JobState> it = app.jobs().records()) {
            while (it.hasNext()) {
                JobState s = it.next().value;
                ObjectNode job = jobs.addObject()
                        .put("job", s.getJob())
                        .put("policy", s.getPolicy())
                        .put("batch", s.getBatch())
                        .put("workers", StoredJobs.workerCount(s))
                        .put("last_opened_round", s.getLastOpenedRound())
                        .put("last_closed_round", s.getLastClosedRound());
                if (self != null) {
                    job.put("instance", RemoteInstances.address(self));
                }
            }
        }
        return jobs;
    }

    private ArrayNode workers() {
        ArrayNode workers = json.createArrayNode();
        try (KeyValueIterator<String, WorkerHeartbeat> it = app.membership().all()) {
            while (it.hasNext()) {
                KeyValue<String, WorkerHeartbeat> kv = it.next();
                WorkerHeartbeat h = kv.value;
                ObjectNode w = workers.addObject()
                        .put("worker", h.getWorkerId())
                        .put("host", h.getHost())
                        .put("device", h.getDevice().name())
                        .put("status", h.getStatus().name())
                        .put("last_heartbeat_ms", h.getTimestampMs());
                ArrayNode partitions = w.putArray("partitions");
                h.getPartitions().forEach(partitions::add);
            }
        }
        return workers;
    }

    private ObjectNode allocation(JobState s) {
        ObjectNode out = json.createObjectNode().put("job", s.getJob()).put("round", s.getLastOpenedRound());
        ArrayNode entries = out.putArray("assignments");
        for (AllocationEntry e : s.getLastAllocation()) {
            ObjectNode a = entries.addObject()
                    .put("worker", e.getWorkerId())
                    .put("partition", e.getPartition())
                    .put("tasks", e.getTaskIds().size());
            ArrayNode ids = a.putArray("task_ids");
            e.getTaskIds().forEach(ids::add);
        }
        return out;
    }

    private ObjectNode error(String message) {
        return json.createObjectNode().put("error", message);
    }

    private QueryReply reply(int status, Object body) {
        return reply(status, body, false);
    }

    /** 503 with {@code Retry-After}: the answer may come shortly (a rebalance, a restarting instance). */
    private QueryReply unavailable(String message) {
        return reply(503, error(message), true);
    }

    private QueryReply reply(int status, Object body, boolean retry) {
        byte[] bytes = write(body).getBytes(StandardCharsets.UTF_8);
        return new QueryReply(status, bytes, self == null ? null : RemoteInstances.address(self), retry);
    }

    private String write(Object body) {
        try {
            return json.writerWithDefaultPrettyPrinter().writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // trees, maps and strings always serialise
        }
    }

    private static String describe(Throwable e) {
        return e instanceof HttpTimeoutException
                ? "timed out"
                : e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    @Override
    public void close() {
        server.close();
    }
}
