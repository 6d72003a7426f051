package io.ata.e2e;

import static io.ata.e2e.TrainerRounds.awaitRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workeragent.WorkerAgent;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two deployments with different topic prefixes on one Kafka cluster (say staging and
 * production), each training a job of the same name with agents of the same worker ids: every
 * name Kafka fences or groups by carries the prefix ({@link Topics#trainerName},
 * {@link Topics#agentTransactionalId}, {@link Topics#workerGroup}, {@link Topics#brokerApplicationId}),
 * so neither stops the other's trainer or agents, and both jobs train to their end. With the
 * prefix-less {@code ata-trainer-<job>} and {@code ata-agent-<worker>} of earlier versions, the
 * second deployment's trainer and agents fenced the first's.
 */
@EndToEnd
class TwoDeploymentsOneClusterTest {
    private static final String JOB = "shared";
    private static final int BATCH = 2;
    private static final long ROUNDS = 8;

    private LocalDeployment staging;
    private LocalDeployment production;

    @AfterEach
    void stop() {
        if (production != null) {
            production.close();
        }
        if (staging != null) {
            staging.close(); // owns the embedded Kafka: last
        }
    }

    @Test
    void sameJobAndWorkerIdsUnderTwoPrefixesBothTrain() throws Exception {
        staging = LocalDeployment.embedded(new Topics("stg.").withTaskPartitions(2), LocalDeployment.QUICK_LIVENESS);
        production = LocalDeployment.existing(
                staging.bootstrapServers(),
                Map.of(),
                new Topics("prd.").withTaskPartitions(2),
                LocalDeployment.QUICK_LIVENESS);
        assertNotEquals(
                staging.trainerConfig(JOB, "ata-auto", BATCH, ROUNDS).build().transactionalId(),
                production.trainerConfig(JOB, "ata-auto", BATCH, ROUNDS).build().transactionalId());

        for (LocalDeployment d : new LocalDeployment[] {staging, production}) {
            d.startBroker();
            d.startFleet(Duration.ofSeconds(60), 3, 5); // agent-1 and agent-2 in both
        }
        Trainer stagingTrainer = staging.startTrainer(JOB, "ata-auto", BATCH, ROUNDS, RoundListener.NONE);
        Trainer productionTrainer = production.startTrainer(JOB, "ata-auto", BATCH, ROUNDS, RoundListener.NONE);

        Map<String, Trainer> trainers = Map.of("stg.", stagingTrainer, "prd.", productionTrainer);
        for (var e : trainers.entrySet()) {
            Trainer t = e.getValue();
            awaitRound(
                    t,
                    ROUNDS,
                    Duration.ofSeconds(90),
                    () -> e.getKey() + " failure " + t.failure() + "; the other's "
                            + trainers.values().stream()
                                    .map(o -> o.failure().toString())
                                    .toList());
        }
        for (LocalDeployment d : new LocalDeployment[] {staging, production}) {
            String prefix = d.topics().prefix();
            for (WorkerAgent a : d.agents()) {
                assertTrue(a.isRunning(), prefix + a.workerId() + " still runs (not fenced): " + a.failure());
                assertTrue(a.failure().isEmpty(), prefix + a.workerId() + ": " + a.failure());
            }
            // each deployment's job: rounds 1..ROUNDS closed exactly once, on its own topics
            Map<Long, Integer> closed = new HashMap<>();
            for (RoundEvent e :
                    TopicContents.values(d, d.topics().rounds(), e -> e.getJob().equals(JOB))) {
                if (e.getType() == RoundEventType.CLOSED) {
                    closed.merge(e.getRound(), 1, Integer::sum);
                }
            }
            for (long k = 1; k <= ROUNDS; k++) {
                assertEquals(1, closed.getOrDefault(k, 0), prefix + " round " + k + " closed once: " + closed);
            }
        }
        assertTrue(stagingTrainer.failure().isEmpty(), stagingTrainer.failure().toString());
        assertTrue(
                productionTrainer.failure().isEmpty(),
                productionTrainer.failure().toString());
    }
}
