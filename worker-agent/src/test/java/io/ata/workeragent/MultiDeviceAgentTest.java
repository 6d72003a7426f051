package io.ata.workeragent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.ml.djl.DeviceChoice;
import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskResult;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.MockClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The multi-device agent's plumbing against Kafka's mock clients: who runs which record, and how far
 * each partition's offset is committed when its records are done out of order by several workers.
 * {@code MultiDeviceAgentTest} in the e2e module runs one on a real cluster.
 */
class MultiDeviceAgentTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final String GROUP_OFFSETS_KEY = "dummy.group.id"; // MockConsumer's group metadata
    private static final TopicPartition P0 = new TopicPartition(Fixtures.TASKS, 0);

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final WaitingMockConsumer tasks = new WaitingMockConsumer();
    private final WaitingMockConsumer model = new WaitingMockConsumer();
    /** The reader of versions before their commit: at the model topic's end from the start, it reads nothing. */
    private final WaitingMockConsumer early = WaitingMockConsumer.atTheEndOf(Fixtures.MODEL);

    private final MockProducer<String, byte[]> plain = MockClients.producer();
    /** Each worker's transactional producer, by transactional id. */
    private final Map<String, MockProducer<String, byte[]>> transactional = new ConcurrentHashMap<>();

    private final List<Map<String, Object>> consumerConfigs = new ArrayList<>();
    /** Released to let worker node-0's tasks finish: it computes until then. */
    private final CountDownLatch slowWorkerMayFinish = new CountDownLatch(1);
    /** Released to let worker node-1's tasks finish; open unless a test closes it. */
    private volatile CountDownLatch secondWorkerMayFinish = new CountDownLatch(0);

    private MultiDeviceAgent agent;
    /** The workers' producers refuse offsets sent with this generation or an older one, as after a rebalance. */
    private volatile int refusedGeneration;

    private final KafkaClientFactory clients = new KafkaClientFactory() {
        @Override
        public Consumer<byte[], byte[]> consumer(Map<String, Object> configs) {
            consumerConfigs.add(configs);
            if (configs.containsKey(ConsumerConfig.GROUP_ID_CONFIG)) {
                return tasks;
            }
            return "read_uncommitted".equals(configs.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG)) ? early : model;
        }

        @Override
        public Producer<String, byte[]> producer(Map<String, Object> configs) {
            Object id = configs.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
            if (id == null) {
                return plain;
            }
            MockProducer<String, byte[]> producer = new GenerationRefusingProducer(refusedGeneration);
            transactional.put(id.toString(), producer);
            return producer;
        }
    };

    /** The quadratic problem, but worker node-0 (its thread) computes until the test lets it finish. */
    private final Workload workload = new Workload() {
        private final QuadraticWorkload quadratic = new QuadraticWorkload();

        @Override
        public Optional<TaskOutput> compute(ModelVersion version, String taskId, long seed, BooleanSupplier stop) {
            String thread = Thread.currentThread().getName();
            CountDownLatch gate = thread.endsWith("node-0")
                    ? slowWorkerMayFinish
                    : thread.endsWith("node-1") ? secondWorkerMayFinish : new CountDownLatch(0);
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
            return quadratic.compute(version, taskId, seed, stop);
        }
    };

    private MultiDeviceAgent agent(int devices) {
        AgentConfig config = AgentConfig.builder("mock:9092")
                .workerId("node")
                .host("box")
                .heartbeatInterval(Duration.ofHours(1)) // only the first periodic one, at start
                .workload(workload)
                .meterRegistry(new SimpleMeterRegistry())
                .build();
        agent = new MultiDeviceAgent(
                config,
                java.util.Collections.nCopies(devices, DeviceChoice.CPU),
                registry,
                clients,
                Clock.systemUTC(),
                null);
        return agent;
    }

    @AfterEach
    void stopAgent() {
        slowWorkerMayFinish.countDown();
        secondWorkerMayFinish.countDown();
        if (agent != null) {
            agent.kill();
        }
    }

    private static void eventually(String what, BooleanSupplier condition) {
        await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(5)).until(condition::getAsBoolean);
    }

    /** The model topic with one partition holding model version 0 of "job". */
    private void modelTopicWithVersion0() {
        TopicPartition m0 = new TopicPartition(Fixtures.MODEL, 0);
        model.updatePartitions(
                Fixtures.MODEL,
                List.of(new PartitionInfo(Fixtures.MODEL, 0, new Node(0, "mock", 9092), new Node[0], new Node[0])));
        model.updateBeginningOffsets(Map.of(m0, 0L));
        model.schedulePollTask(() -> model.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, 0, 0, "job", Fixtures.bytes(registry, Fixtures.model("job", 0)))));
    }

    /** An assignment record of "job" round 1 for {@code worker} at {@code offset} of partition 0. */
    private ConsumerRecord<byte[], byte[]> assignmentAt(long offset, String worker) {
        return MockClients.consumerRecord(
                Fixtures.TASKS, 0, offset, worker, Fixtures.bytes(registry, Fixtures.assignment("job", 1, worker, 1)));
    }

    private MockProducer<String, byte[]> producerOf(String workerId) {
        return transactional.get(Fixtures.TOPICS.agentTransactionalId(workerId));
    }

    /** Every offset of partition 0 that worker {@code workerId}'s transactions committed, in order. */
    private List<Long> committedBy(String workerId) {
        return producerOf(workerId).consumerGroupOffsetsHistory().stream()
                .map(c -> c.getOrDefault(GROUP_OFFSETS_KEY, Map.of()).get(P0))
                .filter(java.util.Objects::nonNull)
                .map(OffsetAndMetadata::offset)
                .toList();
    }

    private List<TaskResult> resultsOf(String workerId) {
        return producerOf(workerId).history().stream()
                .filter(r -> r.topic().equals(Fixtures.TOPICS.gradients().name()))
                .map(r -> Fixtures.decode(registry, Fixtures.TOPICS.gradients(), r))
                .toList();
    }

    private void ownP0WithRecords(List<ConsumerRecord<byte[], byte[]>> records) {
        tasks.schedulePollTask(() -> {
            tasks.rebalance(List.of(P0));
            tasks.updateBeginningOffsets(Map.of(P0, 0L));
            records.forEach(tasks::addRecord);
        });
    }

    @Test
    void eachWorkerRunsItsOwnRecordsAndNoCommitPassesAnotherWorkersRunningOne() {
        modelTopicWithVersion0();
        MultiDeviceAgent agent = agent(2);
        ownP0WithRecords(List.of(assignmentAt(0, "node-0"), assignmentAt(1, "node-1")));
        agent.start();

        // counted once its commit returned and its record was marked done
        eventually("node-1 committed its record", () -> agent.metrics("node-1").tasksRun() == 1);
        assertEquals(List.of(0L), committedBy("node-1"), "not past node-0's record, still running");
        assertEquals(
                List.of("node-1"),
                resultsOf("node-1").stream().map(TaskResult::getWorkerId).toList());
        assertTrue(resultsOf("node-0").isEmpty());

        slowWorkerMayFinish.countDown();
        eventually("node-0 committed its record", () -> !committedBy("node-0").isEmpty());
        assertEquals(List.of(2L), committedBy("node-0"), "past both records once both are done");
        assertEquals(
                List.of("node-0"),
                resultsOf("node-0").stream().map(TaskResult::getWorkerId).toList());
        assertEquals(1, agent.metrics("node-0").tasksRun());
        assertEquals(1, agent.metrics("node-1").tasksRun());
    }

    /**
     * A partition lost and given back while two workers run its records: what they ran under the
     * lost ownership is not committed (it is read, held and run again), so neither can commit past
     * the other's record, not even when the partition is owned again by the time it finishes.
     */
    @Test
    void workReadBeforeItsPartitionWasLostAndGivenBackIsNotCommitted() throws InterruptedException {
        modelTopicWithVersion0();
        secondWorkerMayFinish = new CountDownLatch(1);
        MultiDeviceAgent agent = agent(2);
        ownP0WithRecords(List.of(assignmentAt(0, "node-0"), assignmentAt(1, "node-1")));
        agent.start();
        eventually(
                "both records handed out",
                () -> agent.ownedPartitions().equals(List.of(0))
                        && agent.metrics("node-0").tasksRun() == 0);
        Thread.sleep(200); // both workers are computing

        tasks.schedulePollTask(() -> tasks.rebalance(List.of())); // lost (say, the session expired) ...
        eventually("p0 gone", () -> agent.ownedPartitions().isEmpty());
        tasks.schedulePollTask(() -> tasks.rebalance(List.of(P0))); // ... and given back
        eventually("p0 owned again", () -> agent.ownedPartitions().equals(List.of(0)));

        secondWorkerMayFinish.countDown(); // node-1 finishes record 1 while node-0 still runs record 0
        Thread.sleep(500);
        assertEquals(List.of(), committedBy("node-1"), "nothing of the lost ownership committed");
        assertTrue(resultsOf("node-1").isEmpty());
        // dropping work for its partition's next owner is no failure: the agent runs on
        assertEquals(java.util.Optional.empty(), agent.failure());
        assertTrue(agent.isRunning());
    }

    @Test
    void anAssignmentOfAWorkerNotHereGoesToTheLeastBusyWorker() {
        modelTopicWithVersion0();
        MultiDeviceAgent agent = agent(2);
        // node-0 is busy with its own record when the other agent's leftover comes
        ownP0WithRecords(List.of(assignmentAt(0, "node-0"), assignmentAt(1, "gone-7")));
        agent.start();

        eventually(
                "the leftover ran",
                () -> producerOf("node-1") != null && !resultsOf("node-1").isEmpty());
        TaskResult result = resultsOf("node-1").get(0);
        assertEquals("node-1", result.getWorkerId());
        assertEquals("gone-7", result.getAssignedWorkerId());
    }

    @Test
    void theWorkersShareOneConsumerAndNameItInTheirHeartbeats() {
        modelTopicWithVersion0();
        MultiDeviceAgent agent = agent(3);
        ownP0WithRecords(List.of());
        agent.start();

        assertEquals(List.of("node-0", "node-1", "node-2"), agent.workerIds());
        eventually("every worker announced partition 0", () -> {
            Map<String, WorkerHeartbeat> last = new ConcurrentHashMap<>();
            for (ProducerRecord<String, byte[]> r : plain.history()) {
                if (r.topic().equals(Fixtures.TOPICS.workers().name())) {
                    last.put(r.key(), Fixtures.decode(registry, Fixtures.TOPICS.workers(), r));
                }
            }
            return last.size() == 3
                    && last.values().stream()
                            .allMatch(h -> h.getPartitions().equals(List.of(0))
                                    && h.getTaskConsumer().equals("ata.workers/ata.agent-node"));
        });
        Map<String, Object> taskConsumer = consumerConfigs.get(0);
        assertEquals(MultiDeviceAgent.MAX_POLL_RECORDS, taskConsumer.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG));
        assertEquals("ata.agent-node", taskConsumer.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        assertEquals(
                java.util.Set.of("ata.agent-node-0", "ata.agent-node-1", "ata.agent-node-2"),
                transactional.keySet(),
                "a transactional producer per worker");
    }

    /**
     * A rebalance that keeps the partition refuses the offsets of a worker's transaction (their
     * generation moved on): the worker publishes the same records again in the new generation, and
     * its task is computed once.
     */
    @Test
    void aCommitARebalanceRefusedIsPublishedAgainAndNotComputedAgain() {
        modelTopicWithVersion0();
        tasks.generation = 1;
        refusedGeneration = 1; // the group rebalanced while node-1 computed
        MultiDeviceAgent agent = agent(2);
        ownP0WithRecords(List.of(assignmentAt(0, "node-1")));
        agent.start();
        eventually("node-1's commit refused", () -> agent.metrics("node-1").transactionsAborted() == 1);

        tasks.generation = 2; // the poll thread rejoined, the partition still ours
        eventually("node-1 committed its record", () -> !committedBy("node-1").isEmpty());

        assertEquals(List.of(1L), committedBy("node-1"));
        assertEquals(1, agent.metrics("node-1").transactionsRepublished());
        assertEquals(0, agent.metrics("node-1").retries(), "not run again");
        assertEquals(1, agent.metrics("node-1").tasksRun(), "computed once");
        assertEquals(1, resultsOf("node-1").size(), "its result committed once");
    }

    /** A rebalance that takes the partition away: the refused work is dropped for its next owner. */
    @Test
    void aCommitARebalanceRefusedForAPartitionItTookAwayIsDropped() throws InterruptedException {
        modelTopicWithVersion0();
        tasks.generation = 1;
        refusedGeneration = 1;
        MultiDeviceAgent agent = agent(2);
        ownP0WithRecords(List.of(assignmentAt(0, "node-1")));
        agent.start();
        eventually("node-1's commit refused", () -> agent.metrics("node-1").transactionsAborted() == 1);

        tasks.schedulePollTask(() -> {
            tasks.generation = 2;
            tasks.rebalance(List.of()); // revoked: another agent reads it from the committed offset
        });
        eventually("p0 gone", () -> agent.ownedPartitions().isEmpty());
        Thread.sleep(500); // a republish in the new generation would have committed by now

        assertEquals(List.of(), committedBy("node-1"));
        assertTrue(producerOf("node-1").history().isEmpty(), "nothing of it published");
        assertEquals(0, agent.metrics("node-1").transactionsRepublished());
        assertEquals(0, agent.metrics("node-1").retries());
        assertEquals(java.util.Optional.empty(), agent.failure());
    }
}
