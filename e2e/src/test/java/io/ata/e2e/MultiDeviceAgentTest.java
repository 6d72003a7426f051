package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.ml.djl.DeviceChoice;
import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.MultiDeviceAgent;
import io.ata.workeragent.SupervisedAgent;
import io.ata.workeragent.WorkerAgent;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A multi-device agent on a real cluster, broker and trainer: three workers over one consumer. The
 * broker sees three workers sharing one consumer's partitions (no partition claimed twice), each
 * worker runs the tasks the broker plans for it, and a job's accounting is exact, also when the agent
 * is killed in the middle of the job and a new one takes its place under the same id.
 */
@EndToEnd
class MultiDeviceAgentTest {
    private static final int BATCH = 6;
    private static final List<DeviceChoice> THREE_CPUS = List.of(DeviceChoice.CPU, DeviceChoice.CPU, DeviceChoice.CPU);
    private static final List<String> WORKERS = List.of("node-1-0", "node-1-1", "node-1-2");

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("multi-device.", 4);

    private MultiDeviceAgent agent;
    private SupervisedAgent<MultiDeviceAgent> supervised;

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
        if (supervised != null) {
            supervised.close();
        }
    }

    private MultiDeviceAgent startAgent(LocalDeployment local) {
        AgentConfig config = local.agentConfig("node-1")
                .emulatedTime(LocalDeployment.aboutMs(5))
                .build();
        MultiDeviceAgent started = new MultiDeviceAgent(config, THREE_CPUS, local.registry());
        started.start();
        return started;
    }

    /** The latest heartbeat of each worker, as the broker's membership store holds it. */
    private static Map<String, WorkerHeartbeat> heartbeats(LocalDeployment local) {
        Map<String, WorkerHeartbeat> all = new HashMap<>();
        try (KeyValueIterator<String, WorkerHeartbeat> it =
                local.broker().membership().all()) {
            it.forEachRemaining(kv -> all.put(kv.key, kv.value));
        }
        return all;
    }

    /** Until the broker sees the three workers alive, listing the same partitions of one named consumer. */
    private static void awaitWorkersSharing(LocalDeployment local) {
        await("the three workers share one consumer's partitions")
                .atMost(Duration.ofSeconds(60))
                .until(() -> {
                    Map<String, WorkerHeartbeat> seen = heartbeats(local);
                    if (!seen.keySet().containsAll(WORKERS)) {
                        return false;
                    }
                    WorkerHeartbeat first = seen.get(WORKERS.get(0));
                    return WORKERS.stream()
                            .map(seen::get)
                            .allMatch(h -> h.getStatus() == WorkerStatus.ALIVE
                                    && !h.getPartitions().isEmpty()
                                    && h.getPartitions().equals(first.getPartitions())
                                    && !h.getTaskConsumer().isEmpty()
                                    && h.getTaskConsumer().equals(first.getTaskConsumer()));
                });
    }

    @Test
    void threeWorkersOverOneConsumerTrainAJobWithExactAccountingAcrossAKill(LocalDeployment local) throws Exception {
        agent = startAgent(local);
        awaitWorkersSharing(local);
        assertEquals(WORKERS, agent.workerIds());
        // the consumer owns every partition of the tasks topic: the only member of the group
        assertEquals(List.of(0, 1, 2, 3), agent.ownedPartitions());

        // uta: every round gives each worker B / 3 tasks, so each must run its own
        long rounds = 40;
        Trainer trainer = local.startTrainer("multi", "uta", BATCH, rounds, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(15, Duration.ofSeconds(120)), "rounds with the first agent");
        for (String worker : WORKERS) {
            assertTrue(agent.metrics(worker).tasksRun() > 0, worker + " ran tasks");
        }
        assertEquals(0, local.broker().taskPartitionsClaimedTwice(), "the workers' shared partitions are one claim");

        agent.kill(); // mid-job: what it had not committed is run again by the next one
        assertFalse(agent.isRunning());
        agent = startAgent(local);
        assertTrue(
                trainer.awaitRounds(rounds, Duration.ofSeconds(180)),
                "the job trains to its end (at round " + trainer.metrics().lastClosedRound() + ")");
        for (String worker : WORKERS) {
            assertTrue(agent.metrics(worker).tasksRun() > 0, worker + " of the new agent ran tasks");
        }
        JobAccounting.assertExact(local, "multi", BATCH, rounds);

        agent.close();
        await("the workers said LEAVING")
                .atMost(Duration.ofSeconds(30))
                .until(() ->
                        WORKERS.stream().allMatch(w -> heartbeats(local).get(w).getStatus() == WorkerStatus.LEAVING));
    }

    /**
     * One worker's producer loses its epoch (a producer of its transactional id initializes, as the
     * coordinator bumps it after a pause past the transaction timeout): the whole agent starts over
     * with new clients under its supervisor, and the job trains on with exact accounting.
     */
    @Test
    void anAgentWhoseWorkerLosesItsProducersEpochStartsOverAndTheJobTrainsOn(LocalDeployment local) throws Exception {
        AgentConfig config = local.agentConfig("node-1")
                .emulatedTime(LocalDeployment.aboutMs(5))
                .build();
        supervised = new SupervisedAgent<>(
                config,
                meters -> new MultiDeviceAgent(
                        config, THREE_CPUS, local.registry(), KafkaClientFactory.KAFKA, Clock.systemUTC(), meters::of),
                Clock.systemUTC());
        supervised.start();
        awaitWorkersSharing(local);
        long rounds = 60;
        Trainer trainer = local.startTrainer("epoch", "uta", BATCH, rounds, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(5, Duration.ofSeconds(90)), "rounds before the loss");

        Properties props = new Properties();
        props.putAll(local.clientProperties());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, local.topics().agentTransactionalId("node-1-1"));
        try (KafkaProducer<byte[], byte[]> intruder =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            intruder.initTransactions(); // node-1-1's producer epoch is gone
        }
        await("the agent started over").atMost(Duration.ofSeconds(60)).until(() -> supervised.restarts() == 1);
        long ranBefore = supervised.meters().of("node-1-1").tasksRun();
        assertTrue(
                trainer.awaitRounds(rounds, Duration.ofSeconds(180)),
                "the job trains to its end (at round " + trainer.metrics().lastClosedRound() + ")");
        assertEquals(1, supervised.restarts());
        assertTrue(supervised.isRunning());
        assertTrue(
                supervised.meters().of("node-1-1").tasksRun() > ranBefore,
                "the new agent's node-1-1 ran tasks, counted on from the first's " + ranBefore);
        JobAccounting.assertExact(local, "epoch", BATCH, rounds);
    }

    /**
     * Agents join and leave the fleet while the workers compute: each change rebalances the group
     * (partitions move to the visitor and back), and the offsets of the workers' transactions then
     * committing are refused. Those of partitions the agent kept are published again in the new
     * generation, those of partitions it lost are dropped for their next owner; the accounting is
     * exact and the agent runs on. (Whether a commit was in flight at a change is up to timing: the
     * unit tests pin republishing down; this one prints what the changes cost, for the docs.)
     */
    @Test
    void fleetChangesWhileTheWorkersComputeRepublishTheRefusedCommitsAndKeepTheAccountingExact(LocalDeployment local)
            throws Exception {
        agent = startAgent(local);
        awaitWorkersSharing(local);
        long rounds = 50;
        Trainer trainer = local.startTrainer("churn", "uta", BATCH, rounds, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(3, Duration.ofSeconds(90)), "rounds before the fleet changes");

        for (int i = 1; i <= 6 && trainer.metrics().lastClosedRound() < rounds - 5; i++) {
            WorkerAgent visitor = new WorkerAgent(
                    local.agentConfig("visitor-" + i)
                            .emulatedTime(LocalDeployment.aboutMs(5))
                            .build(),
                    local.registry());
            visitor.start();
            await("visitor " + i + " got partitions")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> !visitor.ownedPartitions().isEmpty());
            Thread.sleep(500);
            visitor.close(); // leaves the group: the partitions come back
        }
        assertTrue(
                trainer.awaitRounds(rounds, Duration.ofSeconds(180)),
                "the job trains to its end (at round " + trainer.metrics().lastClosedRound() + ")");
        long republished = 0;
        long retries = 0;
        for (String worker : WORKERS) {
            republished += agent.metrics(worker).transactionsRepublished();
            retries += agent.metrics(worker).retries();
        }
        // what the fleet changes cost the agent: read by the measurement in docs/live-system.md
        System.out.println(
                "fleet changes: transactions republished " + republished + ", assignments run again " + retries);
        assertEquals(java.util.Optional.empty(), agent.failure(), "no fleet change stops the agent");
        assertTrue(agent.isRunning());
        JobAccounting.assertExact(local, "churn", BATCH, rounds);
    }

    /**
     * Two multi-device agents share the fleet while each stops and starts again: one leaves and
     * comes back twice (its partitions move to the other and back, with records held, parked and
     * republished on both sides), the other crashes and a new one takes its place under the same
     * id. The job trains to its end with exact accounting and no agent stops on its own.
     */
    @Test
    void twoMultiDeviceAgentsTrainAJobWithExactAccountingWhileEachStopsAndStartsAgain(LocalDeployment local)
            throws Exception {
        agent = startAgent(local);
        MultiDeviceAgent second = startSecond(local);
        try {
            awaitWorkersSharing(local);
            long rounds = 60;
            Trainer trainer = local.startTrainer("two-nodes", "uta", BATCH, rounds, RoundListener.NONE);
            assertTrue(trainer.awaitRounds(5, Duration.ofSeconds(90)), "rounds with both agents");

            second.close(); // leaves: node-1 takes every partition
            assertTrue(trainer.awaitRounds(trainer.metrics().lastClosedRound() + 3, Duration.ofSeconds(60)));
            second = startSecond(local);
            assertTrue(trainer.awaitRounds(trainer.metrics().lastClosedRound() + 3, Duration.ofSeconds(60)));

            agent.kill(); // a crash: a new process takes its place under the same id
            agent = startAgent(local);
            assertTrue(trainer.awaitRounds(trainer.metrics().lastClosedRound() + 3, Duration.ofSeconds(60)));

            second.close();
            second = startSecond(local);
            assertTrue(
                    trainer.awaitRounds(rounds, Duration.ofSeconds(180)),
                    "the job trains to its end (at round " + trainer.metrics().lastClosedRound() + ")");
            for (MultiDeviceAgent running : List.of(agent, second)) {
                assertEquals(java.util.Optional.empty(), running.failure(), running.workerId() + " runs on");
                assertTrue(running.isRunning(), running.workerId());
            }
            JobAccounting.assertExact(local, "two-nodes", BATCH, rounds);
        } finally {
            second.close();
        }
    }

    /** node-2, two workers (node-2-0, node-2-1), beside node-1 in the fleet. */
    private static MultiDeviceAgent startSecond(LocalDeployment local) {
        AgentConfig config = local.agentConfig("node-2")
                .emulatedTime(LocalDeployment.aboutMs(5))
                .build();
        MultiDeviceAgent started =
                new MultiDeviceAgent(config, List.of(DeviceChoice.CPU, DeviceChoice.CPU), local.registry());
        started.start();
        return started;
    }
}
