package io.ata.e2e;

import static io.ata.e2e.TrainerRounds.awaitRound;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.djl.DeviceChoice;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;

/**
 * The setup of the tests that train a real network live: the embedded broker, the ATA broker and
 * agents computing on the CPU with one PyTorch thread each (deterministic, and several share the
 * machine), and a trainer of a network on {@code synthetic} data run to its last round.
 */
final class NetworkFleet {
    private NetworkFleet() {}

    /** A deployment with topics prefixed {@code prefix} and {@code agents} CPU agents, every one a member. */
    static EmbeddedFleet of(String prefix, int agents) {
        EmbeddedFleet fleet = EmbeddedFleet.of(prefix, Math.max(2, agents))
                .settings(BrokerSettings.defaults())
                .beforeBroker(NetworkFleet::keepEveryModelVersion);
        for (int i = 1; i <= agents; i++) {
            String workerId = "agent-" + i;
            fleet.agent(local -> local.agentConfig(workerId)
                    .device(DeviceChoice.CPU)
                    .threads(1)
                    .build());
        }
        return fleet;
    }

    /**
     * The model topic is compacted: once a 16 MiB segment closes, the cleaner keeps only each
     * slice's latest version, and a large model's versions close segments within a round. The
     * tests read every version back ({@link ModelHistory}), so here no segment closes.
     */
    private static void keepEveryModelVersion(LocalDeployment local) {
        try (Admin admin = Admin.create(local.clientProperties())) {
            var topic = new ConfigResource(
                    ConfigResource.Type.TOPIC, local.topics().model().name());
            var segment = new AlterConfigOp(
                    new ConfigEntry(TopicConfig.SEGMENT_BYTES_CONFIG, Integer.toString(Integer.MAX_VALUE)),
                    AlterConfigOp.OpType.SET);
            admin.incrementalAlterConfigs(Map.of(topic, List.of(segment))).all().get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot configure the model topic", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted configuring the model topic", e);
        }
    }

    /**
     * A trainer's settings for {@code model} on {@code synthetic} data with UTA, no evaluation
     * (scoring is not what these tests check).
     */
    static TrainerConfig.Builder trainer(LocalDeployment local, String job, String model, int batch, long rounds) {
        return local.trainerConfig(job, "uta", batch, rounds)
                .model(model)
                .data(DatasetResolver.SYNTHETIC)
                .evalEvery(0);
    }

    /** Runs {@code config}'s job to its last round, which must close within {@code timeout}, without a failure. */
    static void train(LocalDeployment local, TrainerConfig config, Duration timeout) throws InterruptedException {
        Trainer trainer = local.startTrainer(config);
        awaitRound(trainer, config.trainingJob().maxRounds(), timeout);
        assertFalse(trainer.failure().isPresent(), () -> "trainer failed: " + trainer.failure());
    }
}
