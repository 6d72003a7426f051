package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.bench.fleet.VirtualFleet;
import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import io.ata.testsupport.Records;
import io.ata.workloads.time.TimeSchedule;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A virtual fleet's shared client whose producer is fenced (its epoch lost, as when a commit waited
 * past the transaction timeout on a loaded machine) starts over with a new producer, as a real
 * agent's supervisor starts the agent over: the assignments it had not committed run again and the
 * fleet goes on. Before, the client stopped for good, and every round of a 1,000-job run waited on
 * agents that would never deliver. On the embedded Kafka broker, without the ATA broker: models and
 * assignments are published by hand.
 */
@EndToEnd
class VirtualFleetStartOverTest {
    private static final String JOB = "restart";
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private LocalDeployment local;
    private HandPublisher hand;

    @BeforeEach
    void start() {
        hand = HandPublisher.embedded("vrestart.", JOB);
        local = hand.local();
    }

    @AfterEach
    void stop() {
        hand.close();
    }

    @Test
    void aClientWhoseProducerIsFencedStartsOverAndRunsWhatItHadNotCommitted() throws Exception {
        hand.publishModel(0);
        // tasks of a few ms: a round's first result is committed alone, and the fenced commit fails
        // while the next is being made (the lane learns of it later)
        try (VirtualFleet fleet = hand.startFleet(VirtualFleet.Settings.of(1)
                .withSchedules(List.of(TimeSchedule.constant(LocalDeployment.aboutMs(20))), 1.0))) {
            String agent = fleet.workerIds().get(0);
            hand.publishAssignment(Records.assignment(JOB, 1, agent, 1).build());
            await("round 1 ran").atMost(PATIENCE).until(hand::resultTaskIds, ids -> ids.contains(JOB + "/1/0"));

            // another producer takes the client's transactional id: the client's epoch is gone
            Properties p = new Properties();
            p.putAll(local.clientProperties());
            p.put("transactional.id", fleet.transactionalIds().get(0));
            try (KafkaProducer<String, byte[]> usurper =
                    new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
                usurper.initTransactions();
            }
            hand.publishModel(1);
            hand.publishAssignment(Records.assignment(JOB, 2, agent, 2).build());

            await("round 2 ran after the client started over")
                    .atMost(PATIENCE)
                    .pollInterval(Duration.ofMillis(200))
                    .until(hand::resultTaskIds, ids -> ids.contains(JOB + "/2/1"));
            assertEquals(1, fleet.counts().restarts(), fleet.counts().toString());
            assertTrue(fleet.counts().failedTransactions() >= 1, fleet.counts().toString());
            assertTrue(fleet.failure().isEmpty(), "the client goes on: " + fleet.failure());
            assertEquals(
                    List.of(JOB + "/1/0", JOB + "/2/0", JOB + "/2/1"),
                    hand.resultTaskIds(),
                    "each result once: the fenced transaction's were never committed");
        }
    }
}
