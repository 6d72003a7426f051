package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ata.broker.BrokerApp;
import io.ata.broker.BrokerHttpServer;
import io.ata.broker.BrokerSettings;
import io.ata.local.kafka.EmbeddedKafka;
import io.ata.local.kafka.TopicSpec;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.JobState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.EndToEnd;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two broker instances (one application id) share the jobs of a 4-partition rounds topic; each
 * answers the interactive queries for every job, forwarding to the other at most once. One
 * deployment for all tests (they only read), the one that takes an instance's queries down last.
 */
@EndToEnd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class InteractiveQueryRoutingTest {
    private static final String PREFIX = "iq.";
    private static final int ROUND_PARTITIONS = 4;
    private static final int JOBS_PER_PARTITION = 2;
    private static final List<String> WORKERS = List.of("w0", "w1", "w2");
    private static final Duration AWAIT = Duration.ofSeconds(90);

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final Topics topics =
            new Topics(PREFIX).withTaskPartitions(WORKERS.size()).withRoundsPartitions(ROUND_PARTITIONS);
    private final List<BrokerApp> apps = new ArrayList<>();
    private final List<BrokerHttpServer> servers = new ArrayList<>();
    private EmbeddedKafka kafka;
    private EmbeddedSchemaRegistry registry;
    private List<String> jobs;
    private Map<String, Integer> owner;

    @BeforeAll
    void start(@TempDir Path state) throws Exception {
        kafka = EmbeddedKafka.builder().start();
        registry = new EmbeddedSchemaRegistry();
        kafka.createTopics(TopicSpec.all(topics));
        jobs = jobsCoveringEveryPartition();

        // A long liveness timeout: the heartbeats below are sent once, and the answers must not change.
        BrokerSettings settings = BrokerSettings.defaults()
                .withTopicPrefix(PREFIX)
                .withLiveness(Duration.ofMinutes(30), Duration.ofSeconds(1));
        for (int i = 0; i < 2; i++) {
            Properties props = new Properties();
            props.put("bootstrap.servers", kafka.bootstrapServers());
            props.put("application.id", PREFIX + "broker");
            BrokerHttpServer http = new BrokerHttpServer("127.0.0.1", 0);
            servers.add(http);
            BrokerApp app = new BrokerApp(props, settings, registry, state.resolve("instance-" + i), http.endpoint());
            apps.add(app.start());
            http.start(app);
        }
        for (BrokerApp app : apps) {
            app.awaitRunning(AWAIT);
        }
        // Both instances in the group, each hosting some partitions of the rounds topic, as both see it.
        await(
                "both instances host jobs",
                () -> apps.stream()
                        .allMatch(a -> a.state() == KafkaStreams.State.RUNNING
                                && holds(() -> a.jobHosts().size() == 2)));
        runOneRoundOfEveryJob();
        owner = ownersFromLocalLists();
    }

    @AfterAll
    void stop() {
        servers.forEach(BrokerHttpServer::close);
        apps.forEach(BrokerApp::close);
        if (kafka != null) {
            kafka.close();
        }
    }

    /** Job names hashed to every partition of the rounds topic (as the producer's partitioner does). */
    private static List<String> jobsCoveringEveryPartition() {
        Map<Integer, Integer> perPartition = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (int n = 0; out.size() < ROUND_PARTITIONS * JOBS_PER_PARTITION; n++) {
            String job = "job-" + n;
            int p = Utils.toPositive(Utils.murmur2(job.getBytes(StandardCharsets.UTF_8))) % ROUND_PARTITIONS;
            if (perPartition.merge(p, 1, Integer::sum) <= JOBS_PER_PARTITION) {
                out.add(job);
            }
        }
        return out;
    }

    /** Three live workers, and every job past round 1: allocated, closed with timings, round 2 allocated. */
    private void runOneRoundOfEveryJob() throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrapServers());
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            var heartbeats = topics.workers().valueSerde(registry).serializer();
            for (int i = 0; i < WORKERS.size(); i++) {
                WorkerHeartbeat h = Records.heartbeat(WORKERS.get(i), System.currentTimeMillis(), i)
                        .setHost("test")
                        .setDevice(DeviceKind.CPU)
                        .build();
                producer.send(new ProducerRecord<>(
                        topics.workers().name(),
                        h.getWorkerId(),
                        heartbeats.serialize(topics.workers().name(), h)));
            }
            producer.flush();
            await(
                    "both instances see the workers",
                    () -> apps.stream()
                            .allMatch(a -> holds(() -> WORKERS.stream()
                                    .allMatch(w -> a.membership().get(w) != null))));

            var rounds = topics.rounds().valueSerde(registry).serializer();
            String topic = topics.rounds().name();
            for (String job : jobs) {
                List<RoundTiming> timings = new ArrayList<>();
                for (int i = 0; i < WORKERS.size(); i++) {
                    for (int t = 0; t < 2; t++) {
                        timings.add(
                                RoundEvents.completed(WORKERS.get(i), job + "/1/" + (2 * i + t), 10.0 * (i + 1) + t));
                    }
                }
                for (RoundEvent e : List.of(
                        opened(job, 1),
                        RoundEvent.newBuilder(RoundEvents.closed(job, 1, 0, timings, 0))
                                .setRoundTimeMs(25)
                                .build(),
                        opened(job, 2))) {
                    producer.send(new ProducerRecord<>(topic, job, rounds.serialize(topic, e)));
                }
            }
            producer.flush();
        }
        await(
                "every job allocated round 2 after folding round 1",
                () -> jobs.stream().allMatch(job -> {
                    List<JobState> hosted = new ArrayList<>();
                    for (BrokerApp a : apps) {
                        JobState s = quietly(() -> a.jobs().get(job));
                        if (s != null) {
                            hosted.add(s);
                        }
                    }
                    return hosted.size() == 1
                            && hosted.get(0).getLastClosedRound() == 1
                            && hosted.get(0).getLastOpenedRound() == 2
                            && !hosted.get(0).getLastAllocation().isEmpty();
                }));
    }

    private static RoundEvent opened(String job, long round) {
        return RoundEvents.opened(job, round, 6, "ata-auto", 0);
    }

    @Test
    @Order(1)
    void eitherInstanceAnswersForEveryJobAsItsOwnerDoes() throws Exception {
        for (String job : jobs) {
            int o = owner.get(job);
            for (String query : List.of("stats", "allocation")) {
                String path = "/jobs/" + job + "/" + query;
                // The owner asked with the hop guard answers from its own store: the reference answer.
                HttpResponse<String> reference = get(o, path, true);
                assertEquals(200, reference.statusCode(), path + " at its owner: " + reference.body());
                for (int i = 0; i < 2; i++) {
                    HttpResponse<String> r = get(i, path, false);
                    assertEquals(200, r.statusCode(), path + " at instance " + i + ": " + r.body());
                    assertEquals(reference.body(), r.body(), path + " at instance " + i);
                    assertEquals(
                            address(o),
                            r.headers()
                                    .firstValue(BrokerHttpServer.INSTANCE_HEADER)
                                    .orElse(null),
                            path + " asked at instance " + i + " is answered by its owner");
                }
            }
            JsonNode stats =
                    json.readTree(get(o, "/jobs/" + job + "/stats", false).body());
            assertEquals(1, stats.get("last_closed_round").asLong());
            assertEquals(WORKERS.size(), stats.get("workers").size());
        }

        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = get(i, "/jobs/no-such-job/stats", false);
            assertEquals(404, r.statusCode(), "an unknown job at instance " + i + ": " + r.body());
        }
    }

    @Test
    @Order(1)
    void eitherInstanceListsTheJobsOfBoth() throws Exception {
        HttpResponse<String> first = get(0, "/jobs", false);
        assertEquals(200, first.statusCode(), first.body());
        assertEquals(first.body(), get(1, "/jobs", false).body(), "both instances list the same jobs");
        List<String> listed = new ArrayList<>();
        for (JsonNode j : json.readTree(first.body())) {
            String job = j.get("job").asText();
            listed.add(job);
            assertEquals(address(owner.get(job)), j.get("instance").asText(), job + " is marked with its host");
            assertEquals(2, j.get("last_opened_round").asLong(), job);
        }
        assertEquals(new ArrayList<>(new TreeSet<>(jobs)), listed, "every job once, by name");
    }

    @Test
    @Order(1)
    void aForwardedQueryIsNotForwardedAgain() throws Exception {
        for (String job : jobs) {
            int other = 1 - owner.get(job);
            // As if the owner had forwarded it here: this instance must not send it back (or on).
            HttpResponse<String> r = get(other, "/jobs/" + job + "/stats", true);
            assertEquals(503, r.statusCode(), job + " forwarded to a non-owner: " + r.body());
            assertTrue(r.headers().firstValue("Retry-After").isPresent(), "503 says when to retry");
            assertEquals(
                    address(other),
                    r.headers().firstValue(BrokerHttpServer.INSTANCE_HEADER).orElse(null),
                    "answered by the instance asked, not by the owner");
            assertTrue(json.readTree(r.body()).get("error").asText().contains("forwarded"), r.body());
        }
        // A forwarded /jobs is answered from the local store only.
        for (int i = 0; i < 2; i++) {
            assertEquals(
                    get(i, "/jobs?scope=local", false).body(),
                    get(i, "/jobs", true).body());
        }
    }

    @Test
    @Order(2)
    void anUnreachableOwnerGives503WithRetryAfter() throws Exception {
        String remoteJob =
                jobs.stream().filter(j -> owner.get(j) == 1).findFirst().orElseThrow();

        servers.get(1).close(); // instance 1 still hosts its jobs, but its queries are gone
        HttpResponse<String> r = get(0, "/jobs/" + remoteJob + "/allocation", false);
        assertEquals(503, r.statusCode(), r.body());
        assertTrue(r.headers().firstValue("Retry-After").isPresent());
        assertTrue(json.readTree(r.body()).get("error").asText().contains(address(1)), r.body());
        HttpResponse<String> all = get(0, "/jobs", false);
        assertEquals(503, all.statusCode(), all.body());
        assertTrue(all.headers().firstValue("Retry-After").isPresent());
        HttpResponse<String> local = get(0, "/jobs?scope=local", false);
        assertEquals(200, local.statusCode(), "the local list stays available: " + local.body());
    }

    /**
     * Which instance hosts each job, from the instances' local lists ({@code ?scope=local}): they
     * must split the jobs between them, each hosting some, each marking its own.
     */
    private Map<String, Integer> ownersFromLocalLists() throws Exception {
        Map<String, Integer> owner = new HashMap<>();
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = get(i, "/jobs?scope=local", false);
            assertEquals(200, r.statusCode(), r.body());
            Set<String> local = new HashSet<>();
            for (JsonNode j : json.readTree(r.body())) {
                local.add(j.get("job").asText());
                assertEquals(address(i), j.get("instance").asText());
                assertEquals(null, owner.put(j.get("job").asText(), i), "a job listed by both instances");
            }
            assertFalse(local.isEmpty(), "instance " + i + " hosts some jobs");
        }
        assertEquals(new HashSet<>(jobs), owner.keySet(), "every job is hosted by one instance");
        return owner;
    }

    private String address(int instance) {
        var e = servers.get(instance).endpoint();
        return e.host() + ":" + e.port();
    }

    private HttpResponse<String> get(int instance, String path, boolean forwarded)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(servers.get(instance).url() + path))
                .timeout(Duration.ofSeconds(30))
                .GET();
        if (forwarded) {
            request.header(BrokerHttpServer.FORWARDED_HEADER, "test");
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A store query, false/null while the stores move (rebalancing). */
    private static <T> T quietly(java.util.function.Supplier<T> query) {
        try {
            return query.get();
        } catch (InvalidStateStoreException | IllegalStateException e) {
            return null;
        }
    }

    private static boolean holds(BooleanSupplier condition) {
        Boolean b = quietly(() -> (Boolean) condition.getAsBoolean());
        return b != null && b;
    }

    private static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).atMost(AWAIT).pollInterval(Duration.ofMillis(50)).until(condition::getAsBoolean);
    }
}
