package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The end-to-end run against a real Kafka in a container (the Apache image), for machines with
 * Docker; skipped where there is none, saying so. The rest of the suite uses the in-JVM KRaft broker.
 */
@EndToEnd
@ExtendWith(RequiresDocker.class)
@Testcontainers
class DockerKafkaEndToEndTest {

    @Container
    static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.3.1");

    @Test
    void trainsOnAKafkaContainer() throws Exception {
        try (LocalDeployment local = LocalDeployment.existing(
                KAFKA.getBootstrapServers(),
                Map.of(),
                new Topics("docker.").withTaskPartitions(8),
                BrokerSettings.defaults())) {
            local.startBroker();
            for (int j = 1; j <= 3; j++) {
                local.startAgent(
                        "agent-" + j,
                        new TaskTimeDistribution.Shifted(2.0 * j, new TaskTimeDistribution.Exponential(2.0 * j)));
            }
            local.awaitFleet(Duration.ofSeconds(120));
            Trainer trainer = local.startTrainer("docker-job", "ata-auto", 6, 20, RoundListener.NONE);
            assertTrue(trainer.awaitRounds(20, Duration.ofSeconds(120)), "trainer stalled: " + trainer.failure());
            List<RoundEvent> closes =
                    TopicContents.values(local, local.topics().rounds(), e -> e.getType() == RoundEventType.CLOSED);
            assertEquals(20, closes.size());
            for (RoundEvent e : closes) {
                assertEquals(
                        6,
                        e.getTimings().stream()
                                .filter(t -> t.getStatus() == TimingStatus.COMPLETED)
                                .map(t -> t.getTaskId())
                                .distinct()
                                .count());
            }
        }
    }
}
