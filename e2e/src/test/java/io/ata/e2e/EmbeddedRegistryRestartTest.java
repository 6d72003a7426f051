package io.ata.e2e;

import static io.ata.e2e.TrainerRounds.awaitRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TopicDef;
import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaVersion;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker restarts on the embedded default (no external Schema Registry) in the middle
 * of a job, its embedded registry with it, and the job finishes. The new registry knows only what it
 * reads from the schemas topic; an in-memory one would answer "unknown schema id" to the records
 * of the broker's own topics and state.
 */
@EndToEnd
class EmbeddedRegistryRestartTest {
    /** How long a round may take to close before the test fails. */
    private static final Duration ROUND_WAIT = Duration.ofSeconds(120);

    private static final int BATCH = 4;
    private static final long ROUNDS = 30;

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("regrestart.", 4);

    @Test
    void aQuadraticJobFinishesAcrossABrokerAndRegistryRestart(LocalDeployment local) throws Exception {
        TaskTimeDistribution fast = new TaskTimeDistribution.Exponential(3);
        local.startAgent("agent-1", fast);
        local.startAgent("agent-2", fast);
        local.awaitFleet(Duration.ofSeconds(60));
        String job = "quadratic-restart";
        Trainer trainer = local.startTrainer(job, "ata-auto", BATCH, ROUNDS, RoundListener.NONE);
        awaitRound(trainer, 8, ROUND_WAIT, () -> state(local, trainer));
        Map<String, SchemaVersion> before = registeredVersions(local);
        assertTrue(before.size() >= 5, "the running parts registered their topics' schemas: " + before.keySet());

        local.stopBroker();
        local.restartRegistry();
        local.startBroker();

        awaitRound(trainer, ROUNDS, ROUND_WAIT, () -> state(local, trainer));
        assertEquals(before, registeredVersions(local), "the restarted registry serves the same ids and versions");
        Map<Long, Integer> closes = new HashMap<>();
        for (ConsumerRecord<String, RoundEvent> r :
                TopicContents.read(local, local.topics().rounds())) {
            if (r.value().getJob().equals(job) && r.value().getType() == RoundEventType.CLOSED) {
                closes.merge(r.value().getRound(), 1, Integer::sum);
            }
        }
        for (long k = 1; k <= ROUNDS; k++) {
            assertEquals(1, closes.getOrDefault(k, 0), "round " + k + " closed once");
        }
        List<String> deadLetters = TopicContents.read(local, local.topics().deadLetters()).stream()
                .map(r -> r.value().getSourceTopic() + ": " + r.value().getReason())
                .toList();
        assertFalse(
                deadLetters.stream().anyMatch(reason -> reason.contains("schema")),
                "no record lost its schema: " + deadLetters);
    }

    private String state(LocalDeployment local, Trainer trainer) {
        return "trainer " + trainer.failure() + "; broker "
                + (local.broker() == null ? "stopped" : local.broker().state());
    }

    /** The latest version of every topic's value subject that has one. */
    private Map<String, SchemaVersion> registeredVersions(LocalDeployment local) {
        Map<String, SchemaVersion> versions = new HashMap<>();
        for (TopicDef<?> topic : local.topics().all()) {
            try {
                versions.put(topic.valueSubject(), local.registry().latest(topic.valueSubject()));
            } catch (SchemaNotFoundException notYet) {
                // a topic nobody has written to yet
            }
        }
        return versions;
    }
}
