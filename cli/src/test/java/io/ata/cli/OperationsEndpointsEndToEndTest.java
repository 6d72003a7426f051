package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ata.local.kafka.EmbeddedKafka;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata broker}, two {@code ata worker}s and an {@code ata trainer}, each run as the user
 * runs it (the command line, in a thread of its own), on an embedded Kafka: every part's
 * {@code GET /metrics} is Prometheus text with its domain meters and Kafka's own client or Streams
 * metrics, consistent with the run; {@code /health} and {@code /ready} answer; {@code promtool}
 * accepts each scrape and a real Prometheus scrapes all of them (where installed).
 */
@EndToEnd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperationsEndpointsEndToEndTest {
    private static final String PREFIX = "ops.";
    private static final String JOB = "ops-job";
    /** A second job, allocated by gta: every worker computes all round, so work is wasted. */
    private static final String GTA_JOB = "ops-gta";

    private static final Duration PATIENCE = Duration.ofMinutes(2);
    /** Names of Micrometer's JVM binders that promtool's linter flags (see {@link #promtoolAcceptsEveryScrape}). */
    private static final List<String> THIRD_PARTY_NAMES = List.of("process_cpu_time_ns_total", "system_cpu_count");

    /** Created by {@link #runASmallJob}: an instance {@code @TempDir} field is not set before {@code @BeforeAll}. */
    private Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private EmbeddedKafka kafka;
    private final List<RunningCommand> parts = new ArrayList<>();
    private String brokerUrl;
    private String trainerUrl;
    private final List<String> agentUrls = new ArrayList<>();
    /** The scrapes, trainer first, then the agents, then the broker: counters only grow, so later ones bound earlier ones. */
    private final Map<String, String> scrapes = new LinkedHashMap<>();

    @BeforeAll
    void runASmallJob(@TempDir Path work) throws Exception {
        dir = work;
        kafka = EmbeddedKafka.builder().start();
        String bootstrap = kafka.bootstrapServers();
        RunningCommand broker = start(
                "broker",
                new String[] {"--bootstrap-servers", bootstrap, "--topic-prefix", PREFIX},
                CliRun.brokerOnFreePorts(dir.resolve("state"), "--create-topics"));
        String registryUrl = broker.awaitLine(broker.out, RunningCommand.REGISTRY_URL_LINE);
        brokerUrl = broker.awaitLine(broker.out, Pattern.compile("http=(\\S+)"));
        Pattern metrics = Pattern.compile("metrics: (\\S+)/metrics");
        String[] connection = {
            "--bootstrap-servers", bootstrap, "--schema-registry-url", registryUrl, "--topic-prefix", PREFIX
        };
        for (int i = 1; i <= 2; i++) {
            RunningCommand agent = start("worker", connection, CliRun.emulatedAgent(i, "--metrics-port", "0"));
            agentUrls.add(agent.awaitLine(agent.err, metrics));
        }
        sendGarbageRound(bootstrap);
        RunningCommand trainer = startTrainer(connection, JOB, "ata-auto", 6);
        trainerUrl = trainer.awaitLine(trainer.err, metrics);
        RunningCommand gtaTrainer = startTrainer(connection, GTA_JOB, "gta", 2);
        gtaTrainer.awaitLine(gtaTrainer.err, metrics);
        await("10 rounds closed", () -> value(scrape(trainerUrl), "ata_trainer_rounds_closed_total") >= 10);
        await(
                "the broker folded 10 rounds of each job",
                () -> value(scrape(brokerUrl), "ata_broker_control_overhead_seconds_count", jobTag(JOB)) >= 10
                        && value(scrape(brokerUrl), "ata_broker_control_overhead_seconds_count", jobTag(GTA_JOB))
                                >= 10);
        await(
                "the broker counts the dead letter",
                () -> value(scrape(brokerUrl), "ata_broker_dead_letters_total") >= 1);
        scrapes.put("trainer", scrape(trainerUrl));
        for (int i = 0; i < agentUrls.size(); i++) {
            scrapes.put("agent-" + (i + 1), scrape(agentUrls.get(i)));
        }
        scrapes.put("broker", scrape(brokerUrl));
        for (Map.Entry<String, String> s : scrapes.entrySet()) {
            Files.writeString(Path.of("target", "metrics-" + s.getKey() + ".prom"), s.getValue());
        }
    }

    @AfterAll
    void stop() throws InterruptedException {
        for (int i = parts.size() - 1; i >= 0; i--) { // the trainer first, the broker last
            parts.get(i).stop();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    /** Checked once Kafka answers and before any topic is created: the cluster is left as it was. */
    @Test
    void aBrokerWhoseRegistryPortIsTakenStopsBeforeCreatingATopic() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            CliRun run = CliRun.line("broker --bootstrap-servers " + kafka.bootstrapServers()
                    + " --topic-prefix taken. --create-topics --registry-port " + taken.getLocalPort());
            assertEquals(1, run.exitCode(), run.transcript());
            assertTrue(
                    run.err()
                            .startsWith("ata broker: error: cannot serve the embedded Schema Registry on 127.0.0.1:"
                                    + taken.getLocalPort() + " (--registry-port): "),
                    run.transcript());
            assertTrue(run.err().contains("choose another port with --registry-port"), run.transcript());
            assertEquals(1, run.err().lines().count(), run.transcript());
        }
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            List<String> created = admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.startsWith("taken."))
                    .toList();
            assertEquals(List.of(), created, "topics created before the port was found taken");
        }
    }

    @Test
    void domainMetricsAreConsistentWithTheRun() {
        String trainer = scrapes.get("trainer");
        double rounds = value(trainer, "ata_trainer_rounds_closed_total");
        double accepted = value(trainer, "ata_trainer_results_total", "outcome=\"accepted\"");
        assertTrue(rounds >= 10, trainer);
        assertTrue(accepted >= 6 * rounds, "every closed round accepted its batch of 6: " + accepted);
        String completed = "outcome=\"completed\"";
        double tasksRun = value(scrapes.get("agent-1"), "ata_agent_tasks_total", completed)
                + value(scrapes.get("agent-2"), "ata_agent_tasks_total", completed);
        assertTrue(tasksRun >= accepted, "the agents ran every accepted result's task: " + tasksRun + " < " + accepted);
        assertEquals(
                1,
                value(scrapes.get("broker"), "ata_broker_dead_letters_total", "source=\"" + PREFIX + "rounds\""),
                "the one garbage round event");
    }

    /** A trainer of {@code job} that runs until stopped, serving its metrics on a free port. */
    private RunningCommand startTrainer(String[] connection, String job, String policy, int batch) {
        return start(
                "trainer",
                connection,
                "--job",
                job,
                "--policy",
                policy,
                "--batch",
                String.valueOf(batch),
                "--rounds",
                "100000",
                "--eval-every",
                "0",
                "--print-every",
                "1000",
                "--metrics-port",
                "0");
    }

    private static String jobTag(String job) {
        return "training_job=\"" + job + "\"";
    }

    /**
     * The broker's per-job meters of closed rounds: an overhead histogram per job and policy, busy
     * time, and wasted time that is 0 where the policy allocates exactly B (ata-auto) unless the
     * trainer received a result it did not use, and below busy time for gta.
     */
    @Test
    void theBrokerMetersOverheadBusyAndWastedTimePerJob() {
        String broker = scrapes.get("broker");
        String exact = jobTag(JOB);
        String greedy = jobTag(GTA_JOB);
        for (String job : List.of(exact, greedy)) {
            double rounds = value(broker, "ata_broker_control_overhead_seconds_count", job);
            assertTrue(rounds >= 10, job + ": " + rounds);
            assertEquals(
                    rounds,
                    value(broker, "ata_broker_control_overhead_seconds_bucket", job, "le=\"+Inf\""),
                    job + ": a histogram, every round in the +Inf bucket");
            double overhead = value(broker, "ata_broker_control_overhead_seconds_sum", job);
            assertTrue(overhead > 0, job + ": rounds take longer than their compute: " + overhead);
            assertTrue(value(broker, "ata_broker_busy_time_seconds_total", job) > 0, job);
        }
        assertTrue(broker.contains("policy=\"ata-auto\""), "the ata-auto job's meters name its policy");
        assertTrue(
                value(broker, "ata_broker_busy_time_seconds_total", greedy, "policy=\"gta\"") > 0,
                "the gta job's meters name its policy");
        // ata-auto allocates exactly B: its only waste is a result the trainer had already (an agent
        // redelivering after a rebalance), which the trainer counted before it closed that round
        double exactWasted = value(broker, "ata_broker_wasted_time_seconds_total", exact);
        String trainer = scrape(trainerUrl);
        String thisJob = "job=\"" + JOB + "\"";
        double notUsed = 0;
        for (String outcome : List.of("duplicate", "late", "cancelled")) {
            notUsed += value(trainer, "ata_trainer_results_total", thisJob, "outcome=\"" + outcome + "\"");
        }
        assertTrue(
                notUsed > 0
                        ? exactWasted < value(broker, "ata_broker_busy_time_seconds_total", exact)
                        : exactWasted == 0,
                "exactly B tasks: time wasted only on results not used (" + notUsed + "): " + exactWasted);
        // gta keeps every worker computing: its waste is counted when the trainer received the
        // unused result before closing the round (a task still running at the close is cancelled
        // afterwards and reaches no CLOSED event), so it may be 0 in a short run, never above busy
        double wasted = value(broker, "ata_broker_wasted_time_seconds_total", greedy);
        double busy = value(broker, "ata_broker_busy_time_seconds_total", greedy);
        assertTrue(
                broker.contains(
                        "ata_broker_wasted_time_seconds_total{application=\"" + PREFIX + "broker\",policy=\"gta\""),
                "the gta job has a wasted-time series");
        assertTrue(wasted >= 0 && wasted < busy, "gta: wasted " + wasted + " of busy " + busy);
    }

    /** Every metric the Grafana dashboard queries is in a scrape of this run: the dashboard shows real series. */
    @Test
    void theDashboardQueriesOnlyMetricsThePartsExpose() throws IOException {
        String dashboard =
                Files.readString(Path.of("..", "deploy", "grafana", "dashboards", "ata.json"), StandardCharsets.UTF_8);
        String all = String.join("\n", scrapes.values());
        Matcher names = Pattern.compile("\\b(?:ata|kafka)_[a-z0-9_]+").matcher(dashboard);
        int checked = 0;
        while (names.find()) {
            String name = names.group();
            assertTrue(
                    Pattern.compile("^" + Pattern.quote(name) + "[{ ]", Pattern.MULTILINE)
                            .matcher(all)
                            .find(),
                    "the dashboard queries " + name + ", which no part exposes");
            checked++;
        }
        assertTrue(checked >= 10, "metrics in the dashboard: " + checked);
    }

    @Test
    void theBrokerStillAnswersItsCountersAsJsonWhenAsked() throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(brokerUrl + "/metrics"))
                        .header("Accept", "application/json")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode json = new ObjectMapper().readTree(r.body());
        assertEquals(1, json.path("dead-letters." + PREFIX + "rounds").asLong(), r.body());
    }

    @Test
    void kafkaClientAndStreamsMetricsAreBound() {
        String trainer = scrapes.get("trainer");
        assertTrue(
                value(
                                trainer,
                                "kafka_consumer_coordinator_assigned_partitions",
                                "client_id=\"ata-trainer-" + JOB + "-gradients\"")
                        > 0,
                "the trainer's gradients consumer has its partitions");
        assertTrue(value(trainer, "kafka_producer_record_send_total") > 0, "the trainer's producer sent");
        for (String agent : List.of("agent-1", "agent-2")) {
            assertTrue(value(scrapes.get(agent), "kafka_producer_record_send_total") > 0, agent);
            assertTrue(value(scrapes.get(agent), "kafka_consumer_fetch_manager_records_consumed_total") > 0, agent);
        }
        assertTrue(value(scrapes.get("broker"), "kafka_stream_thread_process_total") > 0, "Streams processed records");
    }

    @Test
    void everyPartIsAliveAndReadyAndAnswersHeadAnd404And405() throws Exception {
        for (String url : allUrls()) {
            // an agent is briefly not ready while its group rebalances (it holds no partition then)
            await(url + "/ready answers 200", () -> get(url + "/ready").statusCode() == 200);
            for (String probe : List.of("/health", "/ready")) {
                HttpResponse<String> r = get(url + probe);
                assertEquals(200, r.statusCode(), url + probe + ": " + r.body());
                assertEquals(
                        "UP",
                        new ObjectMapper().readTree(r.body()).path("status").asText(),
                        r.body());
            }
            HttpResponse<String> metrics = get(url + "/metrics");
            assertTrue(
                    metrics.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                    url + ": " + metrics.headers());
            HttpResponse<String> openMetrics = http.send(
                    HttpRequest.newBuilder(URI.create(url + "/metrics"))
                            .header("Accept", "application/openmetrics-text; version=1.0.0")
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(
                    openMetrics
                            .headers()
                            .firstValue("Content-Type")
                            .orElse("")
                            .startsWith("application/openmetrics-text"),
                    url);
            assertTrue(openMetrics.body().strip().endsWith("# EOF"), "OpenMetrics ends with # EOF: " + url);
            HttpResponse<String> head = http.send(
                    HttpRequest.newBuilder(URI.create(url + "/ready"))
                            .method("HEAD", HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, head.statusCode(), url);
            assertEquals("", head.body(), url);
        }
        for (String url : List.of(trainerUrl, agentUrls.get(0))) {
            HttpResponse<String> missing = get(url + "/nothing");
            assertEquals(404, missing.statusCode());
            assertTrue(new ObjectMapper().readTree(missing.body()).has("error"), missing.body());
            HttpResponse<String> post = http.send(
                    HttpRequest.newBuilder(URI.create(url + "/metrics"))
                            .POST(HttpRequest.BodyPublishers.ofString("x"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
            assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(null));
        }
    }

    /**
     * promtool parses every scrape, and its linter finds nothing in ATA's own metrics. It does flag
     * names that Kafka's clients and Micrometer's standard binders choose (abbreviated units such as
     * {@code kafka_producer_io_time_ns_total}, a {@code _count} gauge, Kafka metrics without a
     * description): those keep their usual names, which existing Kafka dashboards query.
     */
    @Test
    void promtoolAcceptsEveryScrape() throws Exception {
        assumeTrue(
                ExternalTool.onPath("promtool"),
                "promtool is not installed (Debian: apt-get install prometheus): not checked");
        for (Map.Entry<String, String> s : scrapes.entrySet()) {
            Process p = new ProcessBuilder("promtool", "check", "metrics")
                    .redirectErrorStream(true)
                    .start();
            p.getOutputStream().write(s.getValue().getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "promtool ran");
            // 0: clean; 3: lint problems only (listed, checked below); anything else: it could not parse the scrape
            assertTrue(
                    p.exitValue() == 0 || p.exitValue() == 3, s.getKey() + ": exit " + p.exitValue() + ": " + output);
            for (String line : output.lines().toList()) {
                String name = line.split(" ", 2)[0];
                assertTrue(
                        name.startsWith("kafka_") || THIRD_PARTY_NAMES.contains(name),
                        s.getKey() + ": promtool: " + line + "\n" + output);
            }
        }
    }

    @Test
    void aRealPrometheusScrapesTheThreeParts() throws Exception {
        assumeTrue(
                ExternalTool.onPath("prometheus"),
                "prometheus is not installed (Debian: apt-get install prometheus): not run");
        StringBuilder config = new StringBuilder("global:\n  scrape_interval: 1s\nscrape_configs:\n");
        Map<String, String> jobs = new LinkedHashMap<>();
        jobs.put("ata-broker", brokerUrl);
        jobs.put("ata-trainer", trainerUrl);
        jobs.put("ata-agent", agentUrls.get(0));
        jobs.forEach((job, url) -> config.append("  - job_name: ")
                .append(job)
                .append("\n    static_configs:\n      - targets: ['")
                .append(URI.create(url).getAuthority())
                .append("']\n"));
        Path file = dir.resolve("prometheus.yml");
        Files.writeString(file, config);
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process prometheus = new ProcessBuilder(
                        "prometheus",
                        "--config.file=" + file,
                        "--storage.tsdb.path=" + dir.resolve("tsdb"),
                        "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        try {
            String api = "http://127.0.0.1:" + port + "/api/v1/query?query=";
            await("Prometheus scraped the three parts", () -> {
                JsonNode up = query(api, "up == 1");
                return up != null && up.path("data").path("result").size() == 3;
            });
            await("Prometheus has the trainer's rounds", () -> {
                JsonNode rounds = query(api, "ata_trainer_rounds_closed_total{job=\"ata-trainer\"}");
                return rounds != null && rounds.path("data").path("result").size() == 1;
            });
            // the dashboard's overhead percentiles and wasted time, as Grafana asks for them
            for (String promql : List.of(
                    "histogram_quantile(0.9, sum by (le, policy) (rate(ata_broker_control_overhead_seconds_bucket[30s])))",
                    "sum by (training_job, policy) (rate(ata_broker_wasted_time_seconds_total{policy=\"gta\"}[30s]))")) {
                await(promql, () -> {
                    JsonNode r = query(api, promql);
                    return r != null && r.path("data").path("result").size() >= 1;
                });
            }
            JsonNode deadLetters = query(api, "ata_broker_dead_letters_total{job=\"ata-broker\"}");
            assertEquals(
                    "1",
                    deadLetters
                            .path("data")
                            .path("result")
                            .path(0)
                            .path("value")
                            .path(1)
                            .asText(),
                    deadLetters.toString());
        } finally {
            prometheus.destroy();
            prometheus.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private JsonNode query(String api, String promql) {
        try {
            HttpResponse<String> r = get(api + URLEncoder.encode(promql, StandardCharsets.UTF_8));
            return r.statusCode() == 200 ? new ObjectMapper().readTree(r.body()) : null;
        } catch (IOException e) {
            return null; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private List<String> allUrls() {
        List<String> urls = new ArrayList<>(List.of(brokerUrl, trainerUrl));
        urls.addAll(agentUrls);
        return urls;
    }

    /** One record on the rounds topic that is no Avro at all: the broker dead-letters it. */
    private static void sendGarbageRound(String bootstrap) throws Exception {
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(
                            new Topics(PREFIX).rounds().name(),
                            JOB.getBytes(StandardCharsets.UTF_8),
                            "not avro".getBytes(StandardCharsets.UTF_8)))
                    .get();
        }
    }

    /**
     * The sum of the samples of {@code name} (Prometheus text) whose labels contain every one of
     * {@code labels}; 0 if there are none.
     */
    static double value(String exposition, String name, String... labels) {
        double sum = 0;
        Pattern sample = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*})? (\\S+)$", Pattern.MULTILINE);
        Matcher m = sample.matcher(exposition);
        while (m.find()) {
            String found = m.group(1) == null ? "" : m.group(1);
            if (List.of(labels).stream().allMatch(found::contains)) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        return sum;
    }

    private String scrape(String url) {
        try {
            HttpResponse<String> r = get(url + "/metrics");
            assertEquals(200, r.statusCode(), url + ": " + r.body());
            return r.body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void await(String what, Callable<Boolean> condition) {
        Awaitility.await(what)
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .until(condition);
    }

    /** Starts {@code ata COMMAND CONNECTION... ARGS...}. */
    private RunningCommand start(String command, String[] connection, String... args) {
        List<String> line = new ArrayList<>(List.of(command));
        line.addAll(List.of(connection));
        line.addAll(List.of(args));
        RunningCommand r = new RunningCommand(line.toArray(String[]::new));
        parts.add(r);
        return r;
    }
}
