package io.ata.e2e;

import static io.ata.testsupport.RoundEvents.timing;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ata.broker.BrokerApp;
import io.ata.broker.BrokerHttpServer;
import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.AllocationEntry;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.JobState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.testsupport.EndToEnd;
import io.ata.testsupport.Records;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The broker's HTTP queries, spoken to over real HTTP on an ephemeral port: the status and JSON of
 * every endpoint for a broker that has folded one round of one job, 404s, and 503s while the
 * broker does not run. The broker is a real {@link BrokerApp} on the embedded Kafka broker, fed
 * through its topics.
 */
@EndToEnd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BrokerHttpServerTest {
    private static final String PREFIX = "http.";
    private static final String JOB = "job-a";
    private static final int BATCH = 4;
    private static final Duration AWAIT = Duration.ofSeconds(60);

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Topics topics = new Topics(PREFIX);
    /** When the heartbeats were sent: recent, or the broker would take the workers for dead. */
    private final long heartbeatMs = System.currentTimeMillis();
    // A long liveness timeout: the heartbeats below are sent once, and the answers must not change.
    private final BrokerSettings settings = BrokerSettings.defaults()
            .withTopicPrefix(PREFIX)
            .withLiveness(Duration.ofMinutes(30), Duration.ofSeconds(1));
    private final List<WorkerHeartbeat> heartbeats = List.of(
            heartbeat("w0", List.of(0, 2), WorkerStatus.ALIVE),
            heartbeat("w1", List.of(1), WorkerStatus.ALIVE),
            heartbeat("w2", List.of(), WorkerStatus.LEAVING));
    private LocalDeployment local;
    private BrokerHttpServer server;
    private BrokerApp app;

    @BeforeAll
    void start(@TempDir Path state) throws Exception {
        local = LocalDeployment.embedded(new Topics(PREFIX).withTaskPartitions(3), settings);
        server = new BrokerHttpServer("127.0.0.1", 0);
        app = new BrokerApp(brokerProperties("broker"), settings, local.registry(), state, server.endpoint()).start();
        server.start(app);
        app.awaitRunning(AWAIT);

        send(heartbeats.stream()
                .map(h -> record(topics.workers(), h.getWorkerId(), h))
                .toList());
        await("the broker sees the workers")
                .atMost(AWAIT)
                .ignoreExceptions() // the stores answer once the broker has them
                .until(() -> heartbeats.stream().allMatch(h -> app.membership().get(h.getWorkerId()) != null));

        // Round 1 closed (w0 ran two tasks, w1 one), round 2 opened; then the same close again and
        // a record that is not a round event, for the counters.
        List<RoundTiming> timings = List.of(
                timing("w0", JOB + "/1/0", 10.0, TimingStatus.COMPLETED),
                timing("w0", JOB + "/1/1", 20.0, TimingStatus.COMPLETED),
                timing("w1", JOB + "/1/2", 30.0, TimingStatus.COMPLETED),
                timing("w1", JOB + "/1/3", 50.0, TimingStatus.CANCELLED));
        RoundEvent closed = round(1, RoundEventType.CLOSED, timings);
        String rounds = topics.rounds().name();
        send(List.of(
                record(topics.rounds(), JOB, round(1, RoundEventType.OPENED, List.of())),
                record(topics.rounds(), JOB, closed),
                record(topics.rounds(), JOB, round(2, RoundEventType.OPENED, List.of())),
                record(topics.rounds(), JOB, closed),
                new ProducerRecord<>(rounds, JOB, "{\"not\": \"avro\"}".getBytes(StandardCharsets.UTF_8))));
        await("the broker folds round 1, allocates round 2 and counts the rest")
                .atMost(AWAIT)
                .ignoreExceptions()
                .until(() -> {
                    JobState s = app.jobs().get(JOB);
                    return s.getLastClosedRound() == 1
                            && s.getLastOpenedRound() == 2
                            && app.metrics().snapshot().getOrDefault("dead-letters." + rounds, 0L) == 1;
                });
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable part : new AutoCloseable[] {server, app, local}) { // the cluster last: the others use it
            if (part != null) {
                part.close();
            }
        }
    }

    private Properties brokerProperties(String name) {
        Properties props = new Properties();
        props.putAll(local.clientProperties());
        props.put("application.id", PREFIX + name);
        return props;
    }

    private <T extends SpecificRecord> ProducerRecord<String, byte[]> record(TopicDef<T> topic, String key, T value) {
        return new ProducerRecord<>(
                topic.name(),
                key,
                topic.valueSerde(local.registry()).serializer().serialize(topic.name(), value));
    }

    private void send(List<ProducerRecord<String, byte[]>> records) throws Exception {
        Properties props = new Properties();
        props.putAll(local.clientProperties());
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            for (ProducerRecord<String, byte[]> r : records) {
                producer.send(r).get();
            }
        }
    }

    private WorkerHeartbeat heartbeat(String worker, List<Integer> partitions, WorkerStatus status) {
        return Records.heartbeat(worker, heartbeatMs, partitions)
                .setHost("host-" + worker)
                .setDevice(DeviceKind.CPU)
                .setStatus(status)
                .build();
    }

    private RoundEvent round(long round, RoundEventType type, List<RoundTiming> timings) {
        return RoundEvent.newBuilder()
                .setJob(JOB)
                .setRound(round)
                .setType(type)
                .setModelVersion(type == RoundEventType.OPENED ? round - 1 : round)
                .setBatch(BATCH)
                .setPolicy("uta")
                .setSeed(3)
                .setTimings(timings)
                .setRoundTimeMs(60)
                .setTimestampMs(heartbeatMs)
                .build();
    }

    private HttpResponse<String> get(BrokerHttpServer to, String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(to.url() + path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** GETs {@code path}: 200, JSON, answered by this instance; returns the body. */
    private JsonNode ok(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = get(server, path);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(null), path);
        assertEquals(
                self(), r.headers().firstValue(BrokerHttpServer.INSTANCE_HEADER).orElse(null), path);
        return json.readTree(r.body());
    }

    private String self() {
        return server.endpoint().host() + ":" + server.endpoint().port();
    }

    @Test
    void jobsListsTheJobWithItsRoundsAndItsInstance() throws Exception {
        ArrayNode expected = json.createArrayNode();
        expected.addObject()
                .put("job", JOB)
                .put("policy", "uta")
                .put("batch", BATCH)
                .put("workers", 3)
                .put("last_opened_round", 2)
                .put("last_closed_round", 1)
                .put("instance", self());

        assertEquals(expected, ok("/jobs"));
        assertEquals(expected, ok("/jobs?scope=all"));
        assertEquals(expected, ok("/jobs?scope=local"));
    }

    @Test
    void statsGiveEachWorkersTasksMeanSpreadOpenRoundAndDevice() throws Exception {
        ObjectNode expected = json.createObjectNode()
                .put("job", JOB)
                .put("policy", "uta")
                .put("last_closed_round", 1)
                .put("last_opened_round", 2);
        ArrayNode workers = expected.putArray("workers");
        // w0: 10 and 20 ms; w1: 30 ms, and 50 ms of a cancelled task, counted as time without a result.
        // uta keeps no confidence bound: no lower_bound_ms.
        workers.addObject()
                .put("worker", "w0")
                .put("active", true)
                .put("tasks", 2)
                .put("mean_ms", 15.0)
                .put("sd_ms", Math.sqrt(50.0))
                .put("tasks_this_round", tasksOfOpenRound("w0"))
                .put("status", "ALIVE")
                .put("device", "CPU")
                .put("device_name", "");
        workers.addObject()
                .put("worker", "w1")
                .put("active", true)
                .put("tasks", 1)
                .put("mean_ms", 80.0)
                .put("tasks_this_round", tasksOfOpenRound("w1"))
                .put("status", "ALIVE")
                .put("device", "CPU")
                .put("device_name", "");
        // w2 said it is leaving: known to the job, not active, never observed
        workers.addObject()
                .put("worker", "w2")
                .put("active", false)
                .put("tasks", 0)
                .put("tasks_this_round", 0)
                .put("status", "LEAVING")
                .put("device", "CPU")
                .put("device_name", "");

        assertEquals(expected, ok("/jobs/" + JOB + "/stats"));
        assertEquals(BATCH, tasksOfOpenRound("w0") + tasksOfOpenRound("w1"), "uta gives the open round's B tasks");
    }

    private int tasksOfOpenRound(String worker) {
        return app.jobs().get(JOB).getLastAllocation().stream()
                .filter(e -> e.getWorkerId().equals(worker))
                .mapToInt(e -> e.getTaskIds().size())
                .sum();
    }

    @Test
    void historyGivesTheAllocationMatrixAndTheTimesOfClosedRounds() throws Exception {
        JsonNode history = ok("/jobs/" + JOB + "/history");

        assertEquals(JOB, history.get("job").asText());
        assertEquals(json.readTree("[\"w0\", \"w1\", \"w2\"]"), history.get("workers"));
        JsonNode rounds = history.get("rounds");
        assertEquals(2, rounds.size(), history.toString());
        // round 1, closed once (the duplicate close changes nothing): B tasks, none for the leaving w2;
        // busy 10 + 20 + 30 + 50 ms, of which the cancelled 50 ms wasted
        JsonNode first = rounds.get(0);
        assertEquals(1, first.get("round").asLong());
        assertTrue(first.get("closed").asBoolean());
        int tasks = 0;
        for (JsonNode n : first.get("tasks")) {
            tasks += n.asInt();
        }
        assertEquals(BATCH, tasks, first.toString());
        assertEquals(0, first.get("tasks").get(2).asInt(), first.toString());
        assertEquals(60.0, first.get("round_time_ms").asDouble());
        assertEquals(110.0, first.get("busy_ms").asDouble());
        assertEquals(50.0, first.get("wasted_ms").asDouble());
        // round 2, open: its allocation as stored, no times yet
        JsonNode second = rounds.get(1);
        assertEquals(2, second.get("round").asLong());
        assertFalse(second.get("closed").asBoolean());
        assertFalse(second.has("round_time_ms"), second.toString());
        assertEquals(
                json.readTree("[" + tasksOfOpenRound("w0") + ", " + tasksOfOpenRound("w1") + ", 0]"),
                second.get("tasks"));
    }

    @Test
    void theWebPageAndItsAssetsAreServedAndNothingElseUnderUi() throws Exception {
        HttpResponse<String> page = get(server, "/");
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertTrue(page.body().contains("/ui/app.js"), page.body());
        for (String asset : List.of("/ui/app.js", "/ui/style.css", "/ui/index.html")) {
            HttpResponse<String> r = get(server, asset);
            assertEquals(200, r.statusCode(), asset);
            assertFalse(r.body().isBlank(), asset);
        }
        for (String missing : List.of("/ui/", "/ui/nothing.js", "/ui/../BrokerApp.class")) {
            assertEquals(404, get(server, missing).statusCode(), missing);
        }
        // an encoded dot segment is an ambiguous path: the HTTP server refuses it before any handler
        HttpResponse<String> traversal = get(server, "/ui/%2e%2e/BrokerApp.class");
        assertEquals(400, traversal.statusCode());
        assertTrue(traversal.body().startsWith("{\"error\""), traversal.body());
    }

    @Test
    void allocationShowsTheOpenRoundAsTheBrokerStoredIt() throws Exception {
        JobState state = app.jobs().get(JOB);
        ObjectNode expected = json.createObjectNode().put("job", JOB).put("round", 2);
        ArrayNode assignments = expected.putArray("assignments");
        for (AllocationEntry e : state.getLastAllocation()) {
            ArrayNode ids = assignments
                    .addObject()
                    .put("worker", e.getWorkerId())
                    .put("partition", e.getPartition())
                    .put("tasks", e.getTaskIds().size())
                    .putArray("task_ids");
            e.getTaskIds().forEach(ids::add);
        }

        JsonNode allocation = ok("/jobs/" + JOB + "/allocation");

        assertEquals(expected, allocation);
        // uta: B tasks over the two live workers, each on a partition it owns
        assertEquals(2, allocation.get("assignments").size());
        int tasks = 0;
        for (JsonNode a : allocation.get("assignments")) {
            tasks += a.get("tasks").asInt();
            List<Integer> owned = a.get("worker").asText().equals("w0") ? List.of(0, 2) : List.of(1);
            assertTrue(owned.contains(a.get("partition").asInt()), a.toString());
        }
        assertEquals(BATCH, tasks);
    }

    @Test
    void workersListsTheLastHeartbeatOfEachWorker() throws Exception {
        ArrayNode expected = json.createArrayNode();
        for (WorkerHeartbeat h : heartbeats) {
            ArrayNode partitions = expected.addObject()
                    .put("worker", h.getWorkerId())
                    .put("host", h.getHost())
                    .put("device", "CPU")
                    .put("status", h.getStatus().name())
                    .put("last_heartbeat_ms", heartbeatMs)
                    .putArray("partitions");
            h.getPartitions().forEach(partitions::add);
        }

        assertEquals(expected, ok("/workers"));
    }

    @Test
    void metricsCountTheDeadLetterAndTheDuplicateClose() throws Exception {
        JsonNode metrics = ok("/metrics");

        assertTrue(metrics.isObject(), metrics.toString());
        assertEquals(1, metrics.path("dead-letters." + topics.rounds().name()).asLong(-1), metrics.toString());
        assertEquals(1, metrics.path("duplicate-closes").asLong(-1), metrics.toString());
        metrics.properties().forEach(f -> assertTrue(f.getValue().isIntegralNumber(), f.toString()));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/jobs/no-such-job/stats",
                "/jobs/no-such-job/allocation",
                "/jobs/no-such-job/history",
                "/nothing",
                "/jobs/" + JOB
            })
    void unknownJobsAndPathsAre404(String path) throws Exception {
        HttpResponse<String> r = get(server, path);

        assertEquals(404, r.statusCode(), path + ": " + r.body());
        assertFalse(json.readTree(r.body()).path("error").asText().isBlank(), r.body());
    }

    @Test
    void anUnknownScopeIs400AndAnythingButGetIs405() throws Exception {
        HttpResponse<String> scope = get(server, "/jobs?scope=everywhere");
        assertEquals(400, scope.statusCode(), scope.body());
        assertTrue(json.readTree(scope.body()).path("error").asText().contains("scope=local"), scope.body());

        HttpResponse<String> post = client.send(
                HttpRequest.newBuilder(URI.create(server.url() + "/jobs"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode(), post.body());
    }

    /**
     * Connections that send half a request line and stall (more than the server has threads) do
     * not hold up a query: it is answered while they are all still open.
     */
    @Test
    void halfOpenConnectionsDoNotHoldUpQueries() throws Exception {
        List<Socket> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 40; i++) {
                Socket s = new Socket("127.0.0.1", server.endpoint().port());
                s.getOutputStream().write("GET /jo".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                stalled.add(s);
            }
            HttpResponse<String> jobs = get(server, "/jobs?scope=local"); // the client waits 30 s at most
            assertEquals(200, jobs.statusCode(), jobs.body());
            for (Socket s : stalled) {
                s.setSoTimeout(100);
                assertThrows(
                        SocketTimeoutException.class, () -> s.getInputStream().read(), "still open, unanswered");
            }
        } finally {
            for (Socket s : stalled) {
                s.close();
            }
        }
    }

    @Test
    void aHugeUrlIs414InJsonWithoutTheUrl() throws Exception {
        String[] answer = raw("GET /jobs/" + "x".repeat(100_000) + "/stats HTTP/1.1");
        assertTrue(answer[0].startsWith("HTTP/1.1 414 "), answer[0]);
        assertTrue(answer[1].contains("\ncontent-type: application/json"), answer[1]);
        assertTrue(json.readTree(answer[2]).path("error").isTextual(), answer[2]);
        assertFalse(answer[2].contains("xxxxxxxxxx"), answer[2]);
    }

    @Test
    void aLongJobNameIsEchoedOnlyInPart() throws Exception {
        HttpResponse<String> r = get(server, "/jobs/" + "y".repeat(5_000) + "/stats");
        assertEquals(404, r.statusCode());
        assertTrue(r.body().length() < 500, r.body());
    }

    @Test
    void aMalformedEscapeIs400InJson() throws Exception {
        String[] answer = raw("GET /jobs/%zz/stats HTTP/1.1");
        assertTrue(answer[0].startsWith("HTTP/1.1 400 "), answer[0]);
        assertTrue(answer[1].contains("\ncontent-type: application/json"), answer[1]);
        assertTrue(json.readTree(answer[2]).path("error").isTextual(), answer[2]);
    }

    @Test
    void headIsAnsweredAsGetWithoutTheBody() throws Exception {
        HttpResponse<String> get = get(server, "/jobs/" + JOB + "/stats");
        String[] head = raw("HEAD /jobs/" + JOB + "/stats HTTP/1.1");
        assertTrue(head[0].startsWith("HTTP/1.1 200 "), head[0]);
        assertTrue(
                head[1].contains("\ncontent-length: " + get.body().getBytes(StandardCharsets.UTF_8).length), head[1]);
        assertEquals("", head[2], "no body");
    }

    /**
     * Sends {@code requestLine} and a Host header on a raw socket, as no client library would
     * (a malformed escape, a 100 KB URL); returns the status line, the headers (lower case, each
     * after a newline) and the body.
     */
    private String[] raw(String requestLine) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.endpoint().port())) {
            s.setSoTimeout(30_000);
            s.getOutputStream()
                    .write((requestLine + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int headEnd = answer.indexOf("\r\n\r\n");
            String head = answer.substring(0, headEnd).replace("\r\n", "\n");
            int firstLine = head.indexOf('\n');
            return new String[] {
                head.substring(0, firstLine),
                head.substring(firstLine).toLowerCase(Locale.ROOT),
                answer.substring(headEnd + 4)
            };
        }
    }

    /** Every query but the metrics needs the broker running: before it starts and after it stops, 503. */
    @Test
    void whileTheBrokerDoesNotRunTheQueriesAre503WithRetryAfter(@TempDir Path state) throws Exception {
        try (BrokerHttpServer idleServer = new BrokerHttpServer("127.0.0.1", 0)) {
            BrokerApp idle =
                    new BrokerApp(brokerProperties("idle"), settings, local.registry(), state, idleServer.endpoint());
            try {
                idleServer.start(idle);
                assertUnavailable(idleServer, "not started");
                idle.start();
            } finally {
                idle.close();
            }
            assertUnavailable(idleServer, "stopped");
        }
    }

    private void assertUnavailable(BrokerHttpServer to, String when) throws Exception {
        for (String path : List.of(
                "/jobs",
                "/jobs?scope=local",
                "/jobs/" + JOB + "/stats",
                "/jobs/" + JOB + "/allocation",
                "/jobs/" + JOB + "/history",
                "/workers")) {
            HttpResponse<String> r = get(to, path);
            assertEquals(503, r.statusCode(), when + ", " + path + ": " + r.body());
            assertTrue(r.headers().firstValue("Retry-After").isPresent(), when + ", " + path);
            assertFalse(json.readTree(r.body()).path("error").asText().isBlank(), r.body());
        }
        HttpResponse<String> metrics = get(to, "/metrics");
        assertEquals(200, metrics.statusCode(), when + ": the metrics are the instance's own");
    }
}
