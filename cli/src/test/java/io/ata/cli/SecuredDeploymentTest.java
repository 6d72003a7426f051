package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.kafka.EmbeddedKafka;
import io.ata.local.kafka.TopicAdmin;
import io.ata.local.kafka.TopicSpec;
import io.ata.local.security.RequiredAcls;
import io.ata.local.security.RequiredAcls.Part;
import io.ata.schemas.TopicConfigs;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A locked-down deployment: the embedded Kafka with SASL/PLAIN and the standard authorizer, and
 * {@code ata broker}, {@code ata worker} and {@code ata trainer} each logging in as its own user
 * with exactly the ACLs {@link RequiredAcls} lists for its part (the table of
 * {@code docs/security.md}), nothing more. The job trains; a user without ACLs is refused.
 */
@EndToEnd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecuredDeploymentTest {
    private static final String PREFIX = "sec.";
    private static final String JOB = "sec-job";
    private static final Duration PATIENCE = Duration.ofMinutes(2);
    private static final int ROUNDS = 8;
    /** The administrator first (a super user): it creates the topics and grants the ACLs, nothing else. */
    private static final Map<String, String> USERS = new LinkedHashMap<>();

    static {
        USERS.put("admin", "admin-secret");
        USERS.put("ata-broker", "broker-secret");
        USERS.put("ata-trainer", "trainer-secret");
        USERS.put("ata-agent", "agent-secret");
        USERS.put("intruder", "intruder-secret");
    }

    private Path dir;
    private EmbeddedKafka kafka;
    private final Topics topics = new Topics(PREFIX);
    /** The group the agents use by default: they are given no --group-id (nor the broker --application-id). */
    private final String workerGroup = topics.workerGroup();

    private final List<RunningCommand> parts = new ArrayList<>();
    private RunningCommand trainer;
    private String registryUrl;

    @BeforeAll
    void runAJobAsThreePrincipals(@TempDir Path work) throws Exception {
        dir = work;
        kafka = EmbeddedKafka.builder().saslPlain(USERS).start();
        // the defaults' ACLs: the parts run without --application-id and --group-id, and the
        // trainer and agents with their default group and transactional ids (sec.trainer-sec-job,
        // sec.agent-agent-<i>), so this fails if their defaults are other than the ones granted
        RequiredAcls required = new RequiredAcls(topics);
        List<AclBinding> grants = new ArrayList<>();
        grants.addAll(required.of(Part.BROKER, "User:ata-broker"));
        grants.addAll(required.of(Part.TRAINER, "User:ata-trainer"));
        grants.addAll(required.of(Part.AGENT, "User:ata-agent"));
        try (Admin admin = kafka.admin()) {
            // as 'ata broker --create-topics' run once with admin rights would: the topics and the
            // embedded registry's log
            TopicAdmin.createTopics(admin, topics);
            TopicAdmin.createTopics(admin, List.of(new TopicSpec(topics.schemas(), 1, true, TopicConfigs.compacted())));
            admin.createAcls(grants).all().get();
        }

        RunningCommand broker = start("broker", "ata-broker", CliRun.brokerOnFreePorts(dir.resolve("state")));
        registryUrl = broker.awaitLine(broker.out, RunningCommand.REGISTRY_URL_LINE);
        for (int i = 1; i <= 2; i++) {
            start("worker", "ata-agent", CliRun.emulatedAgent(i, "--schema-registry-url", registryUrl));
        }
        trainer = start(
                "trainer",
                "ata-trainer",
                "--schema-registry-url",
                registryUrl,
                "--job",
                JOB,
                "--batch",
                "4",
                "--rounds",
                "" + ROUNDS,
                "--eval-every",
                "0");
    }

    @AfterAll
    void stop() throws InterruptedException {
        for (int i = parts.size() - 1; i >= 0; i--) {
            parts.get(i).stop();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void eachPartWithOnlyItsAclsTrainsTheJob() throws InterruptedException {
        assertEquals(0, trainer.awaitExit(PATIENCE), "the job ends after its rounds\n" + transcripts());
        for (RunningCommand part : parts) {
            assertTrue(part == trainer || part.isRunning(), "every other part still runs\n" + part.transcript());
            assertTrue(
                    !part.err.toString().toLowerCase(Locale.ROOT).contains("authoriz"),
                    "no authorization error\n" + part.transcript());
        }
        String output = trainer.out.toString();
        assertTrue(
                output.contains("round " + ROUNDS + ": objective"), "the last round closed\n" + trainer.transcript());
        assertTrue(
                output.contains("job " + JOB + " finished at round " + ROUNDS + ":"),
                "the job finished\n" + trainer.transcript());
    }

    @Test
    void aUserWithoutAclsIsRefused() throws Exception {
        Map<String, Object> config = new HashMap<>(EmbeddedKafka.saslClientConfig("intruder", USERS.get("intruder")));
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, workerGroup);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topics.tasks().name()));
            assertThrows(TopicAuthorizationException.class, () -> {
                for (int i = 0; i < 50; i++) {
                    consumer.poll(Duration.ofMillis(200));
                }
            });
        }

        RunningCommand worker = new RunningCommand(
                command("worker", "intruder", "--schema-registry-url", registryUrl, "--worker-id", "intruder"));
        int exit = worker.awaitExit(PATIENCE);
        assertNotEquals(0, exit, worker.transcript());
        String error = worker.err.toString();
        assertTrue(error.startsWith("ata worker: error: topics "), worker.transcript());
        assertTrue(error.contains("this client's principal may not DESCRIBE them"), worker.transcript());
    }

    /**
     * The trainer's ACLs follow the topic prefix: they cover this deployment's trainer ids, not
     * another prefix's trainer of the same job (nor the old prefix-less {@code ata-trainer-<job>}).
     */
    @Test
    void theTrainersAclsCoverOnlyThisPrefixsTransactionalIds() {
        for (String foreign : List.of(new Topics("ata.").trainerName(JOB), "ata-trainer-" + JOB)) {
            Map<String, Object> config =
                    new HashMap<>(EmbeddedKafka.saslClientConfig("ata-trainer", USERS.get("ata-trainer")));
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
            config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, foreign);
            config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
                assertThrows(TransactionalIdAuthorizationException.class, producer::initTransactions, foreign);
            }
        }
    }

    /** {@code ata COMMAND} for the user: its --command-config file, the cluster, the topic prefix, then {@code args}. */
    private RunningCommand start(String command, String user, String... args) {
        RunningCommand part = new RunningCommand(command(command, user, args));
        parts.add(part);
        return part;
    }

    private String[] command(String command, String user, String... args) {
        Path file = dir.resolve(user + ".properties");
        Properties p = new Properties();
        p.putAll(EmbeddedKafka.saslClientConfig(user, USERS.get(user)));
        try (var out = Files.newBufferedWriter(file)) {
            p.store(out, "SASL/PLAIN client settings of " + user);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> line = new ArrayList<>(List.of(
                command,
                "--bootstrap-servers",
                kafka.bootstrapServers(),
                "--command-config",
                file.toString(),
                "--topic-prefix",
                PREFIX));
        line.addAll(List.of(args));
        return line.toArray(String[]::new);
    }

    private String transcripts() {
        StringBuilder all = new StringBuilder();
        parts.forEach(p -> all.append(p.transcript()).append('\n'));
        return all.toString();
    }
}
