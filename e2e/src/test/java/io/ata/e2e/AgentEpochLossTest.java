package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.platform.kafka.KafkaErrors;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workeragent.SupervisedAgent;
import io.ata.workeragent.WorkerAgent;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An agent whose producer's epoch is taken in the middle of a job starts over with new clients and
 * trains on. The epoch goes the way a pause past the transaction timeout takes it (the coordinator
 * bumps it): here a producer of the agent's transactional id initializes, which bumps it at once,
 * so the loss happens at a known moment instead of whenever a freeze lands inside a transaction.
 * The agent's next transaction fails, its {@link SupervisedAgent} starts a new one under the same
 * ids, which fences the intruder in turn, takes its task partitions back and runs what was not
 * committed; nothing is lost or counted twice.
 */
@EndToEnd
class AgentEpochLossTest {
    private static final String JOB = "epoch-loss";
    private static final int BATCH = 2;
    /** Long enough that agent-1 is back well before the end: the rounds go on without it meanwhile. */
    private static final long ROUNDS = 150;

    @RegisterExtension
    final EmbeddedFleet fleet =
            EmbeddedFleet.of("epoch-loss.", 4).agents(LocalDeployment.aboutMs(5), "agent-1", "agent-2");

    @Test
    void anAgentThatLosesItsProducersEpochStartsOverAndTheJobTrainsOn(LocalDeployment local) throws Exception {
        // uta: every round gives each of the two agents one task, so agent-1 meets the loss at once
        Trainer trainer = local.startTrainer(JOB, "uta", BATCH, ROUNDS, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(3, Duration.ofSeconds(90)), "rounds before the loss");
        SupervisedAgent<WorkerAgent> supervised = local.supervisedAgent("agent-1");
        WorkerAgent first = supervised.current();

        Properties props = new Properties();
        props.putAll(local.clientProperties());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, local.topics().agentTransactionalId("agent-1"));
        try (KafkaProducer<byte[], byte[]> intruder =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            intruder.initTransactions(); // agent-1's producer epoch is gone
        }

        // agent-1 says LEAVING as it stops, so the rounds go to agent-2 alone until the new one joins
        await("agent-1 started over").atMost(Duration.ofSeconds(60)).until(() -> supervised.restarts() == 1);
        // the first agent is closed before the new one starts: what it ran is counted by now
        long ranBefore = first.metrics().tasksRun();
        assertTrue(ranBefore > 0, "agent-1 ran tasks before the loss");
        local.awaitFleet(Duration.ofSeconds(60));
        long back = trainer.metrics().lastClosedRound();
        assertTrue(back <= ROUNDS - 20, "the job still runs when agent-1 is back (round " + back + ")");
        assertTrue(
                trainer.awaitRounds(ROUNDS, Duration.ofSeconds(120)),
                "the job trains to its end (at round " + trainer.metrics().lastClosedRound() + ")");
        assertEquals(1, supervised.restarts(), "agent-1 started over once");
        assertTrue(supervised.isRunning());
        WorkerAgent second = supervised.current();
        assertNotSame(first, second);
        Throwable failure = first.failure().orElseThrow();
        assertTrue(
                KafkaErrors.isHealedByNewClients(failure),
                "the first agent stopped on the lost epoch (or a producer it left unusable): " + failure);
        assertTrue(second.isRunning());
        assertTrue(
                second.metrics().tasksRun() > ranBefore,
                "the new agent ran tasks, counted on from the first's " + ranBefore + " (the meters are the worker's)");
        assertTrue(local.agent("agent-2").isRunning());
        JobAccounting.assertExact(local, JOB, BATCH, ROUNDS);
    }
}
