package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.ata.local.security.RequiredAcls;
import io.ata.schemas.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The deployment files (deploy/docker, deploy/compose, deploy/k8s, deploy/prometheus,
 * deploy/grafana) parse, name only commands and flags that {@code ata} has, and render with
 * {@code kubectl kustomize} where kubectl is installed; docs/security.md shows exactly the ACLs of
 * {@link RequiredAcls}. The image and the compose files are run elsewhere: DockerKafkaEndToEndTest
 * and docs/containers.md.
 */
class DeploymentFilesTest {
    /** The repository's root: the tests run in deploy/. */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private static final Path DEPLOY = ROOT.resolve("deploy");
    private final YAMLMapper yaml = new YAMLMapper();

    @Test
    void everyYamlFileParses() throws IOException {
        List<Path> files;
        try (Stream<Path> walk =
                Stream.of("compose", "k8s", "prometheus", "grafana").flatMap(d -> walkQuietly(DEPLOY.resolve(d)))) {
            files = walk.filter(
                            p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .toList();
        }
        assertTrue(files.size() >= 10, files.toString());
        for (Path f : files) {
            List<JsonNode> documents = documents(f);
            assertFalse(documents.isEmpty(), f.toString());
            documents.forEach(d -> assertTrue(d.isObject(), f + ": " + d));
        }
    }

    @Test
    void composeRunsKafka431AndOnlyRealAtaCommandsAndFlags() throws IOException {
        JsonNode services =
                documents(DEPLOY.resolve("compose/compose.yaml")).get(0).path("services");
        assertEquals("apache/kafka:4.3.1", services.path("kafka").path("image").asText());
        List<String> ataServices = new ArrayList<>();
        services.properties().forEach(s -> {
            // the x-ata anchor is merged into each ata service by the YAML parser
            if (s.getValue().path("image").asText().equals("ata:latest")) {
                ataServices.add(s.getKey());
                assertCommandExists(s.getKey(), strings(s.getValue().path("command")));
            }
        });
        assertEquals(List.of("broker", "trainer", "agent-1", "agent-2", "agent-3", "agent-4"), ataServices);
        for (String s : List.of("prometheus", "grafana", "schema-registry")) {
            assertTrue(services.has(s), s);
        }
        assertEquals(
                "dockerfile: deploy/docker/Dockerfile",
                "dockerfile: "
                        + services.path("agent-1")
                                .path("build")
                                .path("dockerfile")
                                .asText());
    }

    @Test
    void theComposeFleetIsHeterogeneous() throws IOException {
        JsonNode services =
                documents(DEPLOY.resolve("compose/compose.yaml")).get(0).path("services");
        List<String> emulated = new ArrayList<>();
        services.properties().forEach(s -> {
            if (!s.getValue().has("command")) {
                return; // an image's own command: Prometheus, Grafana
            }
            List<String> command = strings(s.getValue().path("command"));
            if (command.get(0).equals("worker")) {
                emulated.add(value(command, "--time-model") + " " + value(command, "--worker-index"));
            }
        });
        assertTrue(emulated.size() >= 3, emulated.toString());
        assertEquals(emulated.size(), Set.copyOf(emulated).size(), "each agent emulates another worker: " + emulated);
        List<String> targets = scrapeConfigValues("prometheus/prometheus.yml", "names");
        List<String> agents = new ArrayList<>();
        services.fieldNames().forEachRemaining(n -> {
            if (n.startsWith("agent") || n.equals("pyagent")) { // the Java agents, and the Python ones (profile)
                agents.add(n);
            }
        });
        assertEquals(agents, targets, "Prometheus scrapes every agent service");
    }

    /**
     * compose.local.yaml, compose.yaml for engines with host networking only: every service on the
     * host's network from a local image, each part on ports of its own, the parts find Kafka and
     * the registry on 127.0.0.1, the same job and fleet as compose.yaml, and Prometheus scrapes
     * exactly the parts' ports.
     */
    @Test
    void theLocalComposeFileRunsTheSameSystemOnTheHostNetworkOnPortsOfItsOwn() throws IOException {
        JsonNode base = documents(DEPLOY.resolve("compose/compose.yaml")).get(0).path("services");
        JsonNode local =
                documents(DEPLOY.resolve("compose/compose.local.yaml")).get(0).path("services");
        List<String> ports = new ArrayList<>();
        List<String> scraped = new ArrayList<>();
        List<String> workerIds = new ArrayList<>();
        local.properties().forEach(s -> {
            JsonNode service = s.getValue();
            assertEquals("host", service.path("network_mode").asText(), s.getKey());
            assertEquals(
                    "ata-base:bookworm",
                    service.path("build").path("args").path("BASE_IMAGE").asText(),
                    s.getKey() + " is built FROM the base image of Debian packages");
            if (!service.path("image").asText().equals("ata:latest")) {
                return;
            }
            List<String> command = strings(service.path("command"));
            assertCommandExists(s.getKey(), command);
            switch (command.get(0)) {
                case "kafka" -> ports.add(value(command, "--port"));
                case "broker" -> {
                    ports.add(value(command, "--http-port"));
                    ports.add(value(command, "--registry-port"));
                    scraped.add(value(command, "--http-port"));
                    assertEquals("127.0.0.1:9092", value(command, "--bootstrap-servers"));
                    assertEquals(
                            value(strings(base.path("broker").path("command")), "--state-dir"),
                            value(command, "--state-dir"));
                }
                default -> {
                    ports.add(value(command, "--metrics-port"));
                    scraped.add(value(command, "--metrics-port"));
                    assertEquals("127.0.0.1:9092", value(command, "--bootstrap-servers"));
                    assertEquals("http://127.0.0.1:8081", value(command, "--schema-registry-url"));
                    List<String> same = command.get(0).equals("worker")
                            ? List.of("--time-model", "--worker-index", "--time-scale")
                            : List.of("--job", "--batch");
                    List<String> there = strings(base.path(s.getKey()).path("command"));
                    for (String option : same) {
                        assertEquals(value(there, option), value(command, option), s.getKey() + " " + option);
                    }
                    if (command.get(0).equals("worker")) {
                        workerIds.add(value(command, "--worker-id"));
                    }
                }
            }
        });
        List<String> parts = new ArrayList<>();
        base.properties().forEach(s -> {
            if (s.getValue().path("image").asText().equals("ata:latest")) {
                parts.add(s.getKey());
            }
        });
        assertTrue(names(local).containsAll(parts), "every part of compose.yaml: " + parts);
        assertTrue(
                names(local).containsAll(List.of("kafka", "prometheus")),
                names(local).toString());
        assertEquals(ports.size(), Set.copyOf(ports).size(), "a port of its own for each: " + ports);
        assertEquals(4, Set.copyOf(workerIds).size(), "a worker id of its own for each agent: " + workerIds);
        List<String> targets = scrapeConfigValues("prometheus/prometheus.local.yml", "targets");
        assertEquals(
                scraped.stream().map(p -> "127.0.0.1:" + p).sorted().toList(),
                targets.stream().sorted().toList());
    }

    @Test
    void kubernetesContainersRunOnlyRealAtaCommandsAndFlags() throws IOException {
        int containers = 0;
        for (Path f : List.of("broker.yaml", "agent.yaml", "trainer.yaml").stream()
                .map(DEPLOY.resolve("k8s/base")::resolve)
                .toList()) {
            for (JsonNode doc : documents(f)) {
                for (JsonNode c : doc.path("spec").path("template").path("spec").path("containers")) {
                    assertEquals("ata", c.path("image").asText(), f.toString());
                    assertCommandExists(f.getFileName().toString(), strings(c.path("args")));
                    assertEquals(
                            "/health",
                            c.path("livenessProbe").path("httpGet").path("path").asText(),
                            f.toString());
                    assertEquals(
                            "/ready",
                            c.path("readinessProbe")
                                    .path("httpGet")
                                    .path("path")
                                    .asText(),
                            f.toString());
                    assertFalse(c.path("resources").path("requests").isEmpty(), f + ": resource requests");
                    containers++;
                }
            }
        }
        assertEquals(3, containers);
    }

    @Test
    void theDockerImageRunsTheAtaCommand() throws IOException {
        String dockerfile = Files.readString(DEPLOY.resolve("docker/Dockerfile"), StandardCharsets.UTF_8);
        assertTrue(dockerfile.contains("ENTRYPOINT [\"ata\"]"), dockerfile);
        Matcher cmd =
                Pattern.compile("^CMD \\[\"([^\"]+)\"]", Pattern.MULTILINE).matcher(dockerfile);
        assertTrue(cmd.find(), dockerfile);
        assertNotNull(AtaCommand.commandLine().getCommandSpec().findOption(cmd.group(1)), cmd.group(1));
        assertTrue(
                Pattern.compile("^USER 10001", Pattern.MULTILINE)
                        .matcher(dockerfile)
                        .find(),
                "non-root");
        assertTrue(dockerfile.contains("-XX:MaxRAMPercentage="), "heap sized from the container's limit");
        // a build argument's default stands for it: ARG ATA_JAR=cli/target/ata.jar, COPY ${ATA_JAR} ...
        Map<String, String> args = new HashMap<>();
        Matcher arg = Pattern.compile("^ARG (\\w+)=(\\S+)$", Pattern.MULTILINE).matcher(dockerfile);
        while (arg.find()) {
            args.put("${" + arg.group(1) + "}", arg.group(2));
        }
        Matcher copy = Pattern.compile("^COPY (\\S+) ", Pattern.MULTILINE).matcher(dockerfile);
        while (copy.find()) {
            String source = args.getOrDefault(copy.group(1), copy.group(1));
            // the jar is the build's output (deploy/pom.xml: finalName ata, the shade plugin); the rest is in git
            assertTrue(
                    source.equals("cli/target/ata.jar") || Files.isRegularFile(ROOT.resolve(source)), "COPY " + source);
        }
        String launcher = Files.readString(DEPLOY.resolve("docker/ata"), StandardCharsets.UTF_8);
        assertTrue(launcher.contains("-jar /opt/ata/ata.jar"), launcher);
    }

    @Test
    void kustomizeRendersTheBaseAndTheGpuOverlay() throws Exception {
        assumeTrue(
                ExternalTool.onPath("kubectl"), "kubectl is not installed: `kubectl kustomize deploy/k8s` not checked");
        List<JsonNode> base = kustomize(DEPLOY.resolve("k8s"));
        List<String> kinds = base.stream().map(d -> d.path("kind").asText()).toList();
        assertTrue(
                kinds.containsAll(List.of("StatefulSet", "Deployment", "Job", "ConfigMap", "Service")),
                kinds.toString());
        JsonNode broker = find(base, "StatefulSet", "ata-broker");
        assertEquals(
                "/var/lib/ata",
                broker.at("/spec/template/spec/containers/0/volumeMounts/0/mountPath")
                        .asText());
        assertTrue(strings(broker.at("/spec/template/spec/containers/0/args")).contains("/var/lib/ata/broker-state"));
        JsonNode agent = find(base, "Deployment", "ata-agent");
        assertTrue(agent.at("/spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu")
                .isMissingNode());

        JsonNode gpu = find(kustomize(DEPLOY.resolve("k8s/overlays/gpu")), "Deployment", "ata-agent");
        JsonNode container = gpu.at("/spec/template/spec/containers/0");
        assertEquals(1, container.at("/resources/limits/nvidia.com~1gpu").asInt());
        List<String> args = strings(container.path("args"));
        assertEquals("gpu", args.get(args.indexOf("--device") + 1), args.toString());
        assertCommandExists("gpu agent", args);

        JsonNode node = find(kustomize(DEPLOY.resolve("k8s/overlays/gpu-node")), "Deployment", "ata-agent");
        JsonNode nodeContainer = node.at("/spec/template/spec/containers/0");
        assertEquals(4, nodeContainer.at("/resources/limits/nvidia.com~1gpu").asInt());
        List<String> nodeArgs = strings(nodeContainer.path("args"));
        assertEquals("gpu:0,gpu:1,gpu:2,gpu:3", nodeArgs.get(nodeArgs.indexOf("--device") + 1), nodeArgs.toString());
        assertCommandExists("multi-gpu agent", nodeArgs);
        CommandLine.ParseResult parsed = AtaCommand.commandLine().parseArgs(nodeArgs.toArray(String[]::new));
        WorkerCommand worker = (WorkerCommand) parsed.subcommand().commandSpec().userObject();
        assertEquals(4, worker.devices().size(), "a worker per GPU: " + worker.devices());
    }

    @Test
    void theGrafanaDashboardParsesAndEveryPanelQueriesPrometheus() throws IOException {
        JsonNode dashboard = new ObjectMapper()
                .readTree(DEPLOY.resolve("grafana/dashboards/ata.json").toFile());
        assertEquals("ata", dashboard.path("uid").asText());
        assertTrue(dashboard.path("panels").size() >= 5);
        for (JsonNode panel : dashboard.path("panels")) {
            assertFalse(panel.path("targets").isEmpty(), panel.path("title").asText());
            for (JsonNode t : panel.path("targets")) {
                assertFalse(
                        t.path("expr").asText().isBlank(), panel.path("title").asText());
                // a healthy system has sent no dead letter yet, and no part has its counter then: 0, not "no data"
                if (panel.path("title").asText().equals("Dead letters")) {
                    assertTrue(t.path("expr").asText().contains(" or on() label_replace(vector(0), "), t.toString());
                }
            }
        }
    }

    @Test
    void securityDocShowsExactlyTheRequiredAcls() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/security.md"), StandardCharsets.UTF_8);
        // the defaults of 'ata broker' and 'ata worker': ata.broker, ata.workers
        String table = new RequiredAcls(new Topics(Topics.DEFAULT_PREFIX)).markdownTable();
        assertTrue(table.contains("| broker | GROUP | LITERAL | `ata.broker` | READ |"), table);
        assertTrue(table.contains("| agent | GROUP | LITERAL | `ata.workers` | READ |"), table);
        assertTrue(doc.contains(table), "docs/security.md must contain, verbatim:\n" + table);
    }

    /** The subcommand ({@code args[0]}) and every {@code --flag} of {@code args} exist in ata's command model. */
    private static void assertCommandExists(String where, List<String> args) {
        CommandLine ata = AtaCommand.commandLine();
        CommandLine sub = ata.getSubcommands().get(args.get(0));
        assertNotNull(sub, where + ": no command 'ata " + args.get(0) + "'");
        for (String a : args.subList(1, args.size())) {
            if (a.startsWith("--")) {
                assertNotNull(
                        sub.getCommandSpec().findOption(a), where + ": 'ata " + args.get(0) + "' has no option " + a);
            }
        }
    }

    private List<JsonNode> kustomize(Path dir) throws Exception {
        Process p = new ProcessBuilder("kubectl", "kustomize", dir.toString()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), err);
        return yaml.readValues(yaml.createParser(out), JsonNode.class).readAll();
    }

    private static JsonNode find(List<JsonNode> documents, String kind, String name) {
        return documents.stream()
                .filter(d -> d.path("kind").asText().equals(kind)
                        && d.path("metadata").path("name").asText().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    private List<JsonNode> documents(Path file) throws IOException {
        return yaml.readValues(yaml.createParser(file.toFile()), JsonNode.class).readAll();
    }

    /** The value after {@code option} in {@code command}. */
    private static String value(List<String> command, String option) {
        int i = command.indexOf(option);
        assertTrue(i >= 0 && i + 1 < command.size(), "no " + option + " in " + command);
        return command.get(i + 1);
    }

    private static List<String> names(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    /** The strings of every {@code field} in the scrape configs of a Prometheus file under deploy/. */
    private List<String> scrapeConfigValues(String file, String field) throws IOException {
        List<String> values = new ArrayList<>();
        documents(DEPLOY.resolve(file))
                .get(0)
                .path("scrape_configs")
                .findValues(field)
                .forEach(n -> values.addAll(strings(n)));
        return values;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        assertFalse(out.isEmpty(), "no command");
        return out;
    }

    private static Stream<Path> walkQuietly(Path dir) {
        try {
            return Files.walk(dir).filter(Files::isRegularFile);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
