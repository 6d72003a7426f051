package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An agent frozen (SIGSTOP) with a transaction open hid every other agent's results
 * from the trainer, since read_committed stops at the first open transaction of a partition and
 * all results shared one. Each agent now writes its results to the {@code gradients} partition of
 * the tasks partition they came from, which it alone owns. Here a transaction left open on every
 * partition of agent-1 (as its frozen producer would leave it) stops nothing: with GTA each round
 * needs only agent-2's results, and rounds keep closing while the transaction stays open.
 */
@EndToEnd
class OpenTransactionTest {
    private static final String JOB = "unblocked";
    private static final int BATCH = 2;
    private static final long ROUNDS = 40;

    @RegisterExtension
    final EmbeddedFleet fleet =
            EmbeddedFleet.of("open-txn.", 4).agents(LocalDeployment.aboutMs(5), "agent-1", "agent-2");

    @Test
    void aTransactionLeftOpenOnOneAgentsPartitionsDoesNotHideTheOthersResults(LocalDeployment local) throws Exception {
        Trainer trainer = local.startTrainer(JOB, "gta", BATCH, ROUNDS, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(3, Duration.ofSeconds(90)), "rounds before the open transaction");
        WorkerHeartbeat frozen = local.broker().membership().get("agent-1");
        List<Integer> frozenPartitions = frozen.getPartitions();
        assertFalse(frozenPartitions.isEmpty(), "agent-1 owns task partitions");

        Properties props = new Properties();
        props.putAll(local.clientProperties());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "frozen-agent");
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 300_000); // open for the whole test
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int partition : frozenPartitions) {
                producer.send(new ProducerRecord<>(
                                local.topics().gradients().name(),
                                partition,
                                JOB.getBytes(StandardCharsets.UTF_8),
                                new byte[] {0}))
                        .get();
            }
            long atFreeze = trainer.metrics().lastClosedRound();
            assertTrue(
                    trainer.awaitRounds(ROUNDS, Duration.ofSeconds(120)),
                    "the job trains to its end while the transaction is open (from round " + atFreeze + ")");
            producer.abortTransaction();
        }

        // and the layout behind it: every agent's results are on partitions of its own
        Map<String, Set<Integer>> partitionsOf = new HashMap<>();
        for (ConsumerRecord<String, TaskResult> r :
                TopicContents.read(local, local.topics().gradients())) {
            if (r.value() != null) {
                partitionsOf
                        .computeIfAbsent(r.value().getWorkerId(), w -> new HashSet<>())
                        .add(r.partition());
            }
        }
        assertEquals(Set.of("agent-1", "agent-2"), partitionsOf.keySet());
        assertTrue(
                Set.copyOf(frozenPartitions).containsAll(partitionsOf.get("agent-1")),
                "agent-1 writes to its own partitions only: " + partitionsOf);
        Set<Integer> shared = new HashSet<>(partitionsOf.get("agent-2"));
        shared.retainAll(partitionsOf.get("agent-1"));
        assertEquals(Set.of(), shared, "no partition holds both agents' results: " + partitionsOf);
    }
}
