package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import io.ata.testsupport.EndToEnd;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.OneShotStartupCheckStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The system in containers, each part its own container of the project's image on the host's
 * network: Kafka (the Apache image where a registry serves it, else {@code ata kafka}), the broker
 * with its state on a Docker volume and its embedded Schema Registry, two workers and a trainer. A
 * job trains to its end while a worker's container is killed ({@code docker kill}) and the broker's
 * container is stopped and replaced by a new one on the same volume, which keeps its instance id,
 * its learned state and the registry's schema ids. Skipped, saying why, where Docker cannot serve
 * it ({@link RequiresDocker}); the rest of the suite runs the parts in the JVM.
 */
@EndToEnd
@ExtendWith(RequiresDocker.class)
class DockerKafkaEndToEndTest {
    private static final String PREFIX = "docker.";
    private static final String JOB = "docker-job";
    private static final int BATCH = 6;
    private static final long ROUNDS = 300;
    private static final long KILL_AFTER = 40;
    private static final long RESTART_AFTER = 80;
    private static final String JAVA_OPTS = "-Xmx512m";
    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final Duration PHASE = Duration.ofMinutes(2);
    private static final Pattern ROUND = Pattern.compile("^round (\\d+): ");
    private static final String STATE_DIR = "/var/lib/ata/broker-state";

    private final DockerClient docker = DockerClientFactory.instance().client();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final Deque<GenericContainer<?>> containers = new ConcurrentLinkedDeque<>();
    private final Map<String, Deque<String>> logs = new ConcurrentHashMap<>();
    /** When the trainer printed each round (System.nanoTime()). */
    private final Map<Long, Long> closedAt = new ConcurrentHashMap<>();

    private DockerImages.Images images;
    private String volume;
    private int kafkaPort;
    private int controllerPort;
    private int httpPort;
    private int registryPort;

    @BeforeEach
    void setUp() throws Exception {
        images = DockerImages.get();
        kafkaPort = freePort();
        controllerPort = freePort();
        httpPort = freePort();
        registryPort = freePort();
        volume = "ata-e2e-broker-" + run;
        docker.createVolumeCmd()
                .withName(volume)
                .withLabels(DockerClientFactory.DEFAULT_LABELS)
                .exec();
    }

    @AfterEach
    void tearDown() {
        while (!containers.isEmpty()) {
            try {
                containers.pollLast().stop();
            } catch (RuntimeException e) {
                System.out.println("DockerKafkaEndToEndTest: stopping a container: " + e);
            }
        }
        try {
            docker.removeVolumeCmd(volume).exec();
        } catch (RuntimeException e) {
            System.out.println("DockerKafkaEndToEndTest: removing volume " + volume + ": " + e);
        }
    }

    /**
     * The image's launcher maps the class-data sharing archive its build recorded: with sharing
     * required ({@code -Xshare:on}, which stops a JVM that cannot map its archive) the parts' own
     * classes are loaded from it, not from the jar.
     */
    @Test
    void thePartsLoadTheirClassesFromTheImagesArchive() {
        GenericContainer<?> version = container("--version")
                .withEnv("ATA_JAVA_OPTS", "-Xshare:on -Xlog:class+load=info")
                .withStartupCheckStrategy(new OneShotStartupCheckStrategy().withTimeout(Duration.ofMinutes(1)));
        containers.add(version);
        version.start(); // fails unless the JVM exits 0
        List<String> shared = version.getLogs()
                .lines()
                .filter(l -> l.contains(" io.ata.") && l.endsWith(" source: shared objects file"))
                .toList();
        assertTrue(
                shared.stream().anyMatch(l -> l.contains(" io.ata.cli.AtaCommand source:")),
                "the command's own class comes from the archive: " + shared);
        // the JDK's default archive holds none of them: these came from the image's
        assertTrue(shared.size() >= 50, "the ata classes from the archive: " + shared.size());
    }

    @Test
    void aJobTrainsToItsEndThroughAWorkerKilledAndTheBrokerRestartedOnItsVolume() throws Exception {
        long t0 = System.nanoTime();
        startKafka();
        GenericContainer<?> broker = startBroker("broker");
        double partsUp = seconds(t0);
        List<GenericContainer<?>> workers = new ArrayList<>();
        for (int j = 1; j <= 2; j++) {
            workers.add(part(
                    "worker-" + j,
                    "Press Ctrl-C to stop.",
                    onTheCluster(
                            "worker",
                            "--worker-id",
                            "docker-agent-" + j,
                            "--time-model",
                            "linear",
                            "--worker-index",
                            String.valueOf(j),
                            "--time-scale",
                            "0.25",
                            "--heartbeat-interval",
                            "500ms")));
        }
        await("both workers alive at the broker", STARTUP, () -> aliveWorkers().size() == 2);
        GenericContainer<?> trainer = part(
                "trainer",
                "ata trainer: job",
                onTheCluster(
                        "trainer",
                        "--job",
                        JOB,
                        "--batch",
                        String.valueOf(BATCH),
                        "--rounds",
                        String.valueOf(ROUNDS),
                        "--print-every",
                        "1",
                        "--eval-every",
                        "0"));
        long jobStart = System.nanoTime();

        // a worker's container killed: the broker stops allocating to it, the job goes on
        awaitRound(KILL_AFTER);
        long killRound = lastRound();
        long killedAt = System.nanoTime();
        docker.killContainerCmd(workers.get(1).getContainerId()).exec();
        awaitRound(killRound + 1);
        double firstAfterKill = (closedAt.get(killRound + 1) - killedAt) / 1e9;
        // a killed process says nothing: its last heartbeat, ALIVE, only grows old, and the job's
        // membership check (--liveness-timeout) takes it out of the job's workers
        await("the broker takes the killed worker out of the job", PHASE, () -> !activeInJob("docker-agent-2"));
        long goneRound = lastRound();
        double goneAfter = seconds(killedAt);
        long restartAfter = Math.max(RESTART_AFTER, goneRound + 20);
        assertTrue(
                restartAfter + 20 < ROUNDS,
                "the job is too short for its phases: the killed worker was out of the job only at round " + goneRound);
        awaitRound(restartAfter);
        assertEquals(0, tasksThisRound("docker-agent-2"), "tasks of round " + lastRound() + " for the killed worker");
        double msPerRoundBefore = msPerRound(1, KILL_AFTER - 10, KILL_AFTER);
        double msPerRoundAfter = msPerRound(goneRound + 1, restartAfter - 10, restartAfter);

        // the broker's container stopped, a new one on the same volume: same id, state and schema ids
        String instanceId = instanceId(broker);
        Map<String, Integer> schemaIds = schemaIds();
        long tasksBefore = tasksObserved("docker-agent-1");
        long restartRound = lastRound();
        long stoppedAt = System.nanoTime();
        docker.stopContainerCmd(broker.getContainerId()).withTimeout(30).exec();
        broker.stop();
        containers.remove(broker);
        broker = startBroker("broker-again");
        double brokerDown = seconds(stoppedAt);
        assertEquals(instanceId, instanceId(broker), "the restarted broker keeps its instance id (on the volume)");
        // every subject registered before keeps its id; a part may register another meanwhile (a
        // first dead letter registers the dead-letter topic's schema)
        Map<String, Integer> served = new TreeMap<>(schemaIds());
        served.keySet().retainAll(schemaIds.keySet());
        assertEquals(schemaIds, served, "the restarted registry serves the same schema ids");
        assertTrue(schemaIds.size() >= 5, "the parts registered their topics' schemas: " + schemaIds.keySet());
        long tasksAfter = tasksObserved("docker-agent-1");
        assertTrue(
                tasksAfter >= tasksBefore,
                "the restarted broker still knows what it learned of docker-agent-1: " + tasksAfter + " < "
                        + tasksBefore);
        long readyAt = System.nanoTime();
        // the rounds the old broker had opened may close while it is down; then the new one opens rounds
        await(
                "a round closes after the restarted broker is ready",
                PHASE,
                () -> closedAt.values().stream().anyMatch(t -> t > readyAt));
        long firstAfterRestart = closedAt.entrySet().stream()
                .filter(e -> e.getValue() > readyAt)
                .mapToLong(Map.Entry::getKey)
                .min()
                .getAsLong();
        long closedWhileDown = closedAt.values().stream()
                .filter(t -> t > stoppedAt && t <= readyAt)
                .count();
        double firstAfterRestartSeconds = (closedAt.get(firstAfterRestart) - stoppedAt) / 1e9;

        // the job to its end
        awaitRound(ROUNDS, Duration.ofMinutes(6));
        await("the trainer's container exits", PHASE, () -> !state(trainer).getRunning());
        assertEquals(0L, state(trainer).getExitCodeLong(), String.join("\n", log("trainer")));
        double jobSeconds = (closedAt.get(ROUNDS) - jobStart) / 1e9;
        for (long k = 1; k <= ROUNDS; k++) {
            assertTrue(closedAt.containsKey(k), "round " + k + " closed");
        }
        assertTrue(
                log("trainer").stream().anyMatch(l -> l.startsWith("job " + JOB + " finished at round " + ROUNDS)),
                String.join("\n", log("trainer")));
        JsonNode job = get("/jobs/" + JOB + "/stats");
        assertEquals(ROUNDS, job.path("last_closed_round").asLong(), job.toString());

        System.out.printf(
                Locale.ROOT,
                "DockerKafkaEndToEndTest figures: %s; Kafka and broker up in %.1f s%n"
                        + "  job %s: %d rounds of batch %d in %.1f s (%.0f ms a round with 2 workers, %.0f with 1)%n"
                        + "  worker docker-agent-2 killed after round %d: round %d closed %.1f s later;"
                        + " out of the job %.1f s after the kill, at round %d%n"
                        + "  broker stopped after round %d, a new container on volume %s ready %.1f s later"
                        + " (%d rounds closed meanwhile), round %d the first closed after, %.1f s after the stop;"
                        + " instance id %s and %d schema ids kept%n",
                images.describe(),
                partsUp,
                JOB,
                ROUNDS,
                BATCH,
                jobSeconds,
                msPerRoundBefore,
                msPerRoundAfter,
                killRound,
                killRound + 1,
                firstAfterKill,
                goneAfter,
                goneRound,
                restartRound,
                volume,
                brokerDown,
                closedWhileDown,
                firstAfterRestart,
                firstAfterRestartSeconds,
                instanceId,
                schemaIds.size());
    }

    private void startKafka() {
        if (images.apacheKafka()) {
            GenericContainer<?> kafka = new GenericContainer<>(DockerImageName.parse(images.kafka()))
                    .withNetworkMode("host")
                    .withEnv("KAFKA_NODE_ID", "1")
                    .withEnv("KAFKA_PROCESS_ROLES", "broker,controller")
                    .withEnv(
                            "KAFKA_LISTENERS",
                            "PLAINTEXT://127.0.0.1:" + kafkaPort + ",CONTROLLER://127.0.0.1:" + controllerPort)
                    .withEnv("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://" + bootstrap())
                    .withEnv("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")
                    .withEnv("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT")
                    .withEnv("KAFKA_CONTROLLER_QUORUM_VOTERS", "1@127.0.0.1:" + controllerPort)
                    .withEnv("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
                    .withEnv("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1")
                    .withEnv("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1")
                    .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0");
            start("kafka", kafka, ".*Kafka Server started.*");
        } else {
            part("kafka", "Press Ctrl-C to stop.", "kafka", "--port", String.valueOf(kafkaPort));
        }
    }

    /** The broker with its state on the volume, its embedded registry and HTTP queries on 127.0.0.1. */
    private GenericContainer<?> startBroker(String name) throws InterruptedException {
        GenericContainer<?> broker = container(
                        "broker",
                        "--bootstrap-servers",
                        bootstrap(),
                        "--topic-prefix",
                        PREFIX,
                        "--create-topics",
                        "--task-partitions",
                        "8",
                        "--http-port",
                        String.valueOf(httpPort),
                        "--registry-port",
                        String.valueOf(registryPort),
                        "--liveness-timeout",
                        "3s",
                        "--state-dir",
                        STATE_DIR)
                .withCreateContainerCmdModifier(
                        cmd -> cmd.getHostConfig().withBinds(new Bind(volume, new Volume("/var/lib/ata"))));
        start(name, broker, ".*Press Ctrl-C to stop.*");
        await("the broker is ready", STARTUP, () -> status("/ready") == 200);
        return broker;
    }

    /** {@code ata command} on the test's cluster, topics and registry, then {@code options}. */
    private String[] onTheCluster(String command, String... options) {
        List<String> args = new ArrayList<>(List.of(
                command,
                "--bootstrap-servers",
                bootstrap(),
                "--topic-prefix",
                PREFIX,
                "--schema-registry-url",
                registryUrl()));
        args.addAll(List.of(options));
        return args.toArray(String[]::new);
    }

    private GenericContainer<?> part(String name, String waitFor, String... command) {
        return start(name, container(command), ".*" + Pattern.quote(waitFor) + ".*");
    }

    private GenericContainer<?> container(String... command) {
        return new GenericContainer<>(DockerImageName.parse(images.image()))
                .withNetworkMode("host")
                .withEnv("ATA_JAVA_OPTS", JAVA_OPTS)
                .withCommand(command);
    }

    private GenericContainer<?> start(String name, GenericContainer<?> container, String waitFor) {
        Deque<String> lines = logs.computeIfAbsent(name, n -> new ConcurrentLinkedDeque<>());
        container
                .withCreateContainerCmdModifier(cmd -> cmd.withName("ata-e2e-" + name + "-" + run))
                .withLogConsumer(frame -> {
                    String line = frame.getUtf8StringWithoutLineEnding();
                    lines.add(line);
                    if (lines.size() > 400) {
                        lines.poll();
                    }
                    Matcher m = ROUND.matcher(line);
                    if (name.equals("trainer") && m.find()) {
                        closedAt.putIfAbsent(Long.parseLong(m.group(1)), System.nanoTime());
                    }
                })
                .waitingFor(Wait.forLogMessage(waitFor, 1).withStartupTimeout(STARTUP));
        containers.add(container);
        try {
            container.start();
        } catch (RuntimeException e) {
            throw new AssertionError("container " + name + " did not start:\n" + String.join("\n", lines), e);
        }
        return container;
    }

    private List<String> log(String name) {
        return new ArrayList<>(logs.getOrDefault(name, new ConcurrentLinkedDeque<>()));
    }

    private InspectContainerResponse.ContainerState state(GenericContainer<?> c) {
        return docker.inspectContainerCmd(c.getContainerId()).exec().getState();
    }

    private String instanceId(GenericContainer<?> broker) {
        return broker.copyFileFromContainer(
                        STATE_DIR + "/" + PREFIX + "broker.instance-id",
                        in -> new String(in.readAllBytes(), StandardCharsets.UTF_8))
                .strip();
    }

    /** Subject to the id of its latest version, as the embedded registry answers. */
    private Map<String, Integer> schemaIds() throws IOException, InterruptedException {
        Map<String, Integer> ids = new TreeMap<>();
        for (JsonNode subject : getJson(registryUrl() + "/subjects")) {
            ids.put(
                    subject.asText(),
                    getJson(registryUrl() + "/subjects/" + subject.asText() + "/versions/latest")
                            .path("id")
                            .asInt());
        }
        return ids;
    }

    private long tasksObserved(String worker) throws IOException, InterruptedException {
        for (JsonNode w : get("/jobs/" + JOB + "/stats").path("workers")) {
            if (w.path("worker").asText().equals(worker)) {
                return w.path("tasks").asLong();
            }
        }
        return -1;
    }

    /** Whether the job counts {@code worker} among its live workers (false before the job knows it). */
    private boolean activeInJob(String worker) {
        JsonNode w = jobWorker(worker);
        return w != null && w.path("active").asBoolean(false);
    }

    /** Tasks the job gave {@code worker} in its last opened round; -1 where the job does not list it. */
    private int tasksThisRound(String worker) throws IOException, InterruptedException {
        for (JsonNode w : get("/jobs/" + JOB + "/stats").path("workers")) {
            if (w.path("worker").asText().equals(worker)) {
                return w.path("tasks_this_round").asInt(-1);
            }
        }
        return -1;
    }

    /** The job's view of {@code worker} ({@code /jobs/JOB/stats}), null where the job or the broker has none. */
    private JsonNode jobWorker(String worker) {
        try {
            for (JsonNode w : get("/jobs/" + JOB + "/stats").path("workers")) {
                if (w.path("worker").asText().equals(worker)) {
                    return w;
                }
            }
            return null;
        } catch (IOException | AssertionError e) {
            return null; // the broker not answering yet, or no such job yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private List<String> aliveWorkers() {
        try {
            List<String> alive = new ArrayList<>();
            for (JsonNode w : get("/workers")) {
                if (w.path("status").asText().equals("ALIVE")) {
                    alive.add(w.path("worker").asText());
                }
            }
            return alive;
        } catch (IOException e) {
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        return getJson("http://127.0.0.1:" + httpPort + path);
    }

    private JsonNode getJson(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url + ": " + r.body());
        return json.readTree(r.body());
    }

    private int status(String path) {
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private long lastRound() {
        return closedAt.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private void awaitRound(long round) throws InterruptedException {
        awaitRound(round, PHASE);
    }

    private void awaitRound(long round, Duration timeout) throws InterruptedException {
        await("round " + round + " closed (last: " + lastRound() + ")", timeout, () -> closedAt.containsKey(round));
    }

    /** Mean time a round of the last {@code from..to} rounds took, from {@code from} on only. */
    private double msPerRound(long earliest, long from, long to) {
        long start = Math.max(earliest, from);
        return (closedAt.get(to) - closedAt.get(start)) / 1e6 / Math.max(1, to - start);
    }

    private void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                List<String> tails = new ArrayList<>();
                logs.forEach((name, lines) -> {
                    List<String> all = new ArrayList<>(lines);
                    tails.add("--- " + name + ":\n"
                            + String.join("\n", all.subList(Math.max(0, all.size() - 15), all.size())));
                });
                Collections.sort(tails);
                throw new AssertionError(
                        "not in " + timeout.toSeconds() + " s: " + what + "\n" + String.join("\n", tails));
            }
            Thread.sleep(100);
        }
    }

    private String bootstrap() {
        return "127.0.0.1:" + kafkaPort;
    }

    private String registryUrl() {
        return "http://127.0.0.1:" + registryPort;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /**
     * A free port below the kernel's ephemeral range (32768-60999 by default). The containers bind
     * these ports minutes after they are chosen, and a port from the ephemeral range can meanwhile
     * become some connection's source port on the shared host network: the broker's container once
     * failed to listen on its HTTP port that way.
     */
    private static int freePort() throws IOException {
        SplittableRandom random = new SplittableRandom();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20_000 + random.nextInt(12_000);
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // another port
            }
        }
        throw new IOException("no free port in 20000-31999 on the loopback address");
    }
}
