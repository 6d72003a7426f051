package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three agents and a tasks topic of two partitions. Kafka gives each partition to one
 * agent, so one agent would own none and never get a task. The broker grows the topic, the group
 * rebalances, and every agent owns a partition and runs tasks of the job.
 */
@EndToEnd
class TaskPartitionGrowthEndToEndTest {
    private LocalDeployment local;

    @BeforeEach
    void start() throws Exception {
        local = LocalDeployment.embedded(new Topics("grow.").withTaskPartitions(2), LocalDeployment.QUICK_LIVENESS);
        local.startBroker();
        for (String id : List.of("agent-1", "agent-2", "agent-3")) {
            local.startAgent(id, LocalDeployment.aboutMs(5));
        }
    }

    @AfterEach
    void stop() {
        local.close();
    }

    @Test
    void moreAgentsThanPartitionsGrowTheTopicAndEveryAgentGetsTasks() throws Exception {
        // every agent owns a partition: impossible on two partitions
        local.awaitFleet(Duration.ofSeconds(90));
        String tasks = local.topics().tasks().name();
        try (Admin admin = Admin.create(local.clientProperties())) {
            TopicDescription d =
                    admin.describeTopics(List.of(tasks)).allTopicNames().get().get(tasks);
            assertEquals(4, d.partitions().size(), "grown to twice its partitions");
        }

        Trainer trainer = local.startTrainer("grown", "gta", 3, 10, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(10, Duration.ofSeconds(90)), "the job trains");
        for (var agent : local.agents()) {
            assertTrue(agent.metrics().tasksRun() > 0, agent.workerId() + " ran tasks");
        }
        Map<String, Long> snapshot = local.broker().metrics().snapshot();
        assertEquals(null, snapshot.get("dead-letters.grow.workers"), "no heartbeat was refused: " + snapshot);
    }
}
