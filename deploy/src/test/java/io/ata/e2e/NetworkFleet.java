package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.djl.DeviceChoice;
import io.ata.schemas.Topics;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import java.time.Duration;

/**
 * The setup of the tests that train a real network live: the embedded broker, the ATA broker and
 * agents computing on the CPU with one PyTorch thread each (deterministic, and several share the
 * machine), and a trainer of a network on {@code synthetic} data run to its last round.
 */
final class NetworkFleet {
    private NetworkFleet() {}

    /** A deployment with topics prefixed {@code prefix} and {@code agents} CPU agents, every one a member. */
    static LocalDeployment start(String prefix, int agents) throws InterruptedException {
        LocalDeployment local = LocalDeployment.embedded(
                new Topics(prefix).withTaskPartitions(Math.max(2, agents)), BrokerSettings.defaults());
        try {
            local.startBroker();
            for (int i = 1; i <= agents; i++) {
                local.startAgent(local.agentConfig("agent-" + i)
                        .device(DeviceChoice.CPU)
                        .threads(1)
                        .build());
            }
            local.awaitFleet(Duration.ofSeconds(60));
            return local;
        } catch (InterruptedException | RuntimeException e) {
            local.close();
            throw e;
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
        assertTrue(
                trainer.awaitRounds(config.trainingJob().maxRounds(), timeout),
                "stalled at round " + trainer.metrics().lastClosedRound() + "; trainer " + trainer.failure());
        assertFalse(trainer.failure().isPresent(), () -> "trainer failed: " + trainer.failure());
    }
}
