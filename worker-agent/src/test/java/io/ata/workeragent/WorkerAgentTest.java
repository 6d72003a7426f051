package io.ata.workeragent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.platform.kafka.KafkaErrors;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.MockClients;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Kafka plumbing of the agent against Kafka's mock clients: which settings each client gets,
 * what goes into each transaction, and the heartbeats around rebalances and shutdown. (The real
 * broker round trip is tested in the deploy module.)
 */
class WorkerAgentTest {

    private static final Duration PATIENCE = Duration.ofSeconds(20);
    private static final String GROUP_OFFSETS_KEY = "dummy.group.id"; // MockConsumer's group metadata

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final WaitingMockConsumer tasks = new WaitingMockConsumer();
    private final WaitingMockConsumer model = new WaitingMockConsumer();
    /** The reader of versions before their commit: at the model topic's end from the start, it reads nothing. */
    private final WaitingMockConsumer early = WaitingMockConsumer.atTheEndOf(Fixtures.MODEL);

    private final MockProducer<String, byte[]> transactional = producer();
    private final MockProducer<String, byte[]> plain = producer();
    private final List<Map<String, Object>> consumerConfigs = new ArrayList<>();
    private final List<Map<String, Object>> producerConfigs = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private WorkerAgent agent;

    private static MockProducer<String, byte[]> producer() {
        return MockClients.producer();
    }

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
            producerConfigs.add(configs);
            return configs.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG) ? transactional : plain;
        }
    };

    private WorkerAgent agent() {
        return agent(AgentConfig.DEFAULT_RETRY_BACKOFF);
    }

    private WorkerAgent agent(Duration retryBackoff) {
        AgentConfig config = AgentConfig.builder("mock:9092")
                .retryBackoff(retryBackoff)
                .workerId("w1")
                .host("box")
                .heartbeatInterval(Duration.ofHours(1)) // only the first periodic one, at start
                .clientProperty("security.protocol", "SASL_SSL")
                .clientProperty(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500) // overridden
                .meterRegistry(meters)
                .build();
        agent = new WorkerAgent(config, registry, clients, Clock.systemUTC());
        return agent;
    }

    @AfterEach
    void stopAgent() {
        if (agent != null) {
            agent.kill();
        }
    }

    /** Waits until {@code condition} holds; the timeout only bounds a hang. */
    private static void eventually(String what, BooleanSupplier condition) {
        await(what).atMost(PATIENCE).pollInterval(Duration.ofMillis(5)).until(condition::getAsBoolean);
    }

    private List<WorkerHeartbeat> heartbeats() {
        List<WorkerHeartbeat> all = new ArrayList<>();
        for (ProducerRecord<String, byte[]> r : plain.history()) {
            if (r.topic().equals(Fixtures.TOPICS.workers().name())) {
                assertEquals("w1", r.key());
                all.add(Fixtures.decode(registry, Fixtures.TOPICS.workers(), r));
            }
        }
        return all;
    }

    private List<ProducerRecord<String, byte[]>> sentTo(MockProducer<String, byte[]> producer, String topic) {
        return producer.history().stream().filter(r -> r.topic().equals(topic)).toList();
    }

    private Long committedOffset(TopicPartition partition) {
        List<Map<String, Map<TopicPartition, OffsetAndMetadata>>> history = transactional.consumerGroupOffsetsHistory();
        Long offset = null;
        for (Map<String, Map<TopicPartition, OffsetAndMetadata>> commit : history) {
            OffsetAndMetadata o =
                    commit.getOrDefault(GROUP_OFFSETS_KEY, Map.of()).get(partition);
            if (o != null) {
                offset = o.offset();
            }
        }
        return offset;
    }

    /** Every offset of {@code partition} committed, in order. */
    private List<Long> committedOffsets(TopicPartition partition) {
        return transactional.consumerGroupOffsetsHistory().stream()
                .map(c -> c.getOrDefault(GROUP_OFFSETS_KEY, Map.of()).get(partition))
                .filter(java.util.Objects::nonNull)
                .map(OffsetAndMetadata::offset)
                .toList();
    }

    /** The model topic with one partition holding model version 0 of "job". */
    private void modelTopicWithVersion0() {
        TopicPartition p0 = new TopicPartition(Fixtures.MODEL, 0);
        model.updatePartitions(
                Fixtures.MODEL,
                List.of(new PartitionInfo(Fixtures.MODEL, 0, new Node(0, "mock", 9092), new Node[0], new Node[0])));
        model.updateBeginningOffsets(Map.of(p0, 0L));
        model.schedulePollTask(() -> model.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, 0, 0, "job", Fixtures.bytes(registry, Fixtures.model("job", 0)))));
    }

    /** Model version {@code version} of "job" at offset {@code version} of the model topic, at the cache's next poll. */
    private void modelVersionArrives(long version) {
        model.schedulePollTask(() -> model.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, 0, version, "job", Fixtures.bytes(registry, Fixtures.model("job", version)))));
    }

    /** An assignment record of "job" round {@code round} (version {@code round - 1}) for {@code worker}. */
    private ConsumerRecord<byte[], byte[]> assignmentAt(int partition, long offset, long round, String worker) {
        return MockClients.consumerRecord(
                Fixtures.TASKS,
                partition,
                offset,
                worker,
                Fixtures.bytes(registry, Fixtures.assignment("job", round, worker, 1)));
    }

    /** The results published so far, decoded. */
    private List<TaskResult> results() {
        return sentTo(transactional, Fixtures.TOPICS.gradients().name()).stream()
                .map(r -> Fixtures.decode(registry, Fixtures.TOPICS.gradients(), r))
                .toList();
    }

    /**
     * Pipelined allocation: round 2 (version 1) is parked while the newest model is 0, and the
     * backup copy of round 1 behind it in the same partition runs at once; the partition's offset
     * stays at the parked record until version 1 comes, which wakes the task thread's poll.
     */
    /** Makes {@code partitions} the task consumer's, each read from its start (for a poll task). */
    private void ownFromTheStart(TopicPartition... partitions) {
        tasks.rebalance(List.of(partitions));
        Map<TopicPartition, Long> starts = new HashMap<>();
        for (TopicPartition p : partitions) {
            starts.put(p, 0L);
        }
        tasks.updateBeginningOffsets(starts);
    }

    @Test
    void anAssignmentOneVersionAheadIsParkedWhileTheRecordsBehindItRun() throws InterruptedException {
        modelTopicWithVersion0();
        // a poll ends with a record or a wakeup only: a poll timing out just as the model came
        // would otherwise run the parked round itself, and no wakeup would be needed
        tasks.emptyPollWait = Duration.ofSeconds(30);
        WorkerAgent agent = agent();
        TopicPartition p0 = new TopicPartition(Fixtures.TASKS, 0);
        tasks.schedulePollTask(() -> {
            ownFromTheStart(p0);
            tasks.addRecord(assignmentAt(0, 0, 2, "w1"));
            tasks.addRecord(assignmentAt(0, 1, 1, "w-slow")); // a copy of another worker's round-1 task
        });
        agent.start();

        eventually(
                "the copy behind the parked record ran", () -> Long.valueOf(0).equals(committedOffset(p0)));
        assertEquals(
                List.of("job/1/0"),
                results().stream().map(TaskResult::getTaskId).toList());
        assertEquals(1, agent.metrics().assignmentsParked());
        assertEquals(List.of(0L), committedOffsets(p0), "not past the parked record");

        int wakeupsBefore = tasks.wakeups.get();
        modelVersionArrives(1); // round 1 closed
        eventually("the parked round ran", () -> Long.valueOf(2).equals(committedOffset(p0)));
        List<TaskResult> results = results();
        assertEquals(
                List.of("job/1/0", "job/2/0"),
                results.stream().map(TaskResult::getTaskId).toList());
        assertEquals(1, results.get(1).getModelVersion());
        assertEquals(List.of(0L, 2L), committedOffsets(p0), "past both records once the parked one ran");
        assertTrue(tasks.wakeups.get() > wakeupsBefore, "the model's arrival woke the task consumer");
        assertEquals(2, agent.metrics().assignmentsCompleted());
    }

    @Test
    void theParkedAssignmentsOfARevokedPartitionAreDropped() throws InterruptedException {
        modelTopicWithVersion0();
        WorkerAgent agent = agent();
        TopicPartition p0 = new TopicPartition(Fixtures.TASKS, 0);
        TopicPartition p1 = new TopicPartition(Fixtures.TASKS, 1);
        tasks.schedulePollTask(() -> {
            ownFromTheStart(p0, p1);
            tasks.addRecord(assignmentAt(0, 0, 2, "w-old"));
        });
        agent.start();
        eventually("parked", () -> agent.metrics().assignmentsParked() == 1);

        tasks.schedulePollTask(() -> tasks.rebalance(List.of(p1))); // p0 goes to another agent
        eventually("p0 revoked", () -> agent.ownedPartitions().equals(List.of(1)));
        modelVersionArrives(1);
        // two records of p1 after the model: by the end of the second, a parked p0 record would have run
        tasks.schedulePollTask(() -> tasks.addRecord(assignmentAt(1, 0, 2, "w1")));
        eventually("round 2 of p1 ran", () -> Long.valueOf(1).equals(committedOffset(p1)));
        tasks.schedulePollTask(() -> tasks.addRecord(assignmentAt(1, 1, 2, "w1")));
        eventually("and the next record", () -> Long.valueOf(2).equals(committedOffset(p1)));

        assertNull(committedOffset(p0), "nothing committed of p0: its next owner reads the parked record again");
        assertTrue(
                results().stream().noneMatch(r -> r.getAssignedWorkerId().equals("w-old")),
                "the dropped assignment did not run");
        assertEquals(2, results().size());
    }

    @Test
    void givesEachClientTheSettingsTheContractNeeds() {
        agent();
        Map<String, Object> taskConsumer = consumerConfigs.get(0);
        assertEquals("ata.workers", taskConsumer.get(ConsumerConfig.GROUP_ID_CONFIG), "the default prefix's group");
        assertEquals("read_committed", taskConsumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
        assertEquals(false, taskConsumer.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG));
        assertEquals(1, taskConsumer.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG));
        assertEquals("earliest", taskConsumer.get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG));
        assertEquals("SASL_SSL", taskConsumer.get("security.protocol"));
        assertEquals("mock:9092", taskConsumer.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));

        Map<String, Object> modelConsumer = consumerConfigs.get(1);
        assertFalse(modelConsumer.containsKey(ConsumerConfig.GROUP_ID_CONFIG));
        assertEquals("read_committed", modelConsumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
        assertEquals("SASL_SSL", modelConsumer.get("security.protocol"));

        // versions before their commit: read_uncommitted, from the end, no group
        Map<String, Object> earlyConsumer = consumerConfigs.get(2);
        assertFalse(earlyConsumer.containsKey(ConsumerConfig.GROUP_ID_CONFIG));
        assertEquals("read_uncommitted", earlyConsumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
        assertEquals("latest", earlyConsumer.get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG));
        assertEquals("SASL_SSL", earlyConsumer.get("security.protocol"));

        Map<String, Object> txProducer = producerConfigs.get(0);
        assertEquals("ata.agent-w1", txProducer.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG), "the default prefix's");
        assertEquals("SASL_SSL", txProducer.get("security.protocol"));
        assertFalse(producerConfigs.get(1).containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG));
    }

    @Test
    void runsAnAssignmentInTransactionsAndCommitsItsOffsetWithTheLastTask() throws InterruptedException {
        modelTopicWithVersion0();
        WorkerAgent agent = agent();
        TopicPartition p0 = new TopicPartition(Fixtures.TASKS, 0);
        TopicPartition p2 = new TopicPartition(Fixtures.TASKS, 2);
        tasks.schedulePollTask(() -> {
            ownFromTheStart(p0, p2);
            // written for another worker: the partition was rebalanced to us
            tasks.addRecord(MockClients.consumerRecord(
                    Fixtures.TASKS,
                    2,
                    0,
                    "w-old",
                    Fixtures.bytes(registry, Fixtures.assignment("job", 1, "w-old", 2))));
            tasks.addRecord(MockClients.consumerRecord(Fixtures.TASKS, 2, 1, "w1", new byte[] {42}));
        });
        agent.start();

        eventually("both records are done", () -> Long.valueOf(2).equals(committedOffset(p2)));
        assertEquals(List.of(0, 2), agent.ownedPartitions());
        assertTrue(
                heartbeats().stream()
                        .anyMatch(h -> h.getPartitions().equals(List.of(0, 2)) && h.getStatus() == WorkerStatus.ALIVE),
                "a heartbeat announced the new partitions");
        for (WorkerHeartbeat h : heartbeats()) { // the quadratic problem: the task thread on the CPU
            assertEquals(DeviceKind.CPU, h.getDevice());
            assertEquals(ComputeDevice.javaThread().name(), h.getDeviceName());
            assertFalse(h.getDeviceName().isBlank());
            assertTrue(h.getDeviceMemoryBytes() > 0, "the machine's RAM");
            assertEquals(1, h.getThreads());
        }

        // the two tasks in one transaction, or two when the second finished after the first's commit
        // (group commit); one for the dead letter; offsets with the last task, then past the bad record
        long commits = transactional.commitCount();
        assertTrue(commits == 2 || commits == 3, commits + " transactions");
        assertEquals(
                List.of(1L, 2L),
                transactional.consumerGroupOffsetsHistory().stream()
                        .map(c -> c.get(GROUP_OFFSETS_KEY).get(p2).offset())
                        .toList());
        List<ProducerRecord<String, byte[]>> gradients =
                sentTo(transactional, Fixtures.TOPICS.gradients().name());
        List<ProducerRecord<String, byte[]>> timings =
                sentTo(transactional, Fixtures.TOPICS.timings().name());
        assertEquals(2, gradients.size());
        assertEquals(2, timings.size());
        for (int i = 0; i < 2; i++) {
            assertEquals("job", gradients.get(i).key());
            TaskResult result = Fixtures.decode(registry, Fixtures.TOPICS.gradients(), gradients.get(i));
            assertEquals("job/1/" + i, result.getTaskId());
            assertEquals("w1", result.getWorkerId());
            assertEquals("w1", timings.get(i).key());
            TaskTiming timing = Fixtures.decode(registry, Fixtures.TOPICS.timings(), timings.get(i));
            assertEquals("w1", timing.getWorkerId());
            assertEquals(result.getComputeMs(), timing.getComputeMs(), 0);
        }
        List<ProducerRecord<String, byte[]>> dead =
                sentTo(transactional, Fixtures.TOPICS.deadLetters().name());
        assertEquals(1, dead.size());
        assertEquals(Fixtures.TASKS, dead.get(0).key());
        DeadLetter letter = Fixtures.decode(registry, Fixtures.TOPICS.deadLetters(), dead.get(0));
        assertEquals(1, letter.getOffset());
        // counted once its transaction is published, on the agent's thread, after the offset this
        // test waited for was committed
        eventually("the letter counted", () -> agent.metrics().deadLetters() == 1);
        assertEquals(2, agent.metrics().tasksRun());
        assertEquals(1, agent.metrics().deadLetters());
        // the agent counts in the registry of its config
        RequiredSearch w1 = meters.get(AgentMetrics.TASKS).tag(AgentMetrics.WORKER, "w1");
        assertEquals(2, w1.tag(AgentMetrics.OUTCOME, "completed").counter().count());
        assertEquals(
                1,
                meters.get(AgentMetrics.DEAD_LETTERS)
                        .tag(AgentMetrics.WORKER, "w1")
                        .counter()
                        .count());

        agent.close();
        assertFalse(agent.isRunning());
        assertTrue(meters.getMeters().isEmpty(), "a stopped agent's meters leave the registry");
        List<WorkerHeartbeat> beats = heartbeats();
        WorkerHeartbeat last = beats.get(beats.size() - 1);
        assertEquals(WorkerStatus.LEAVING, last.getStatus(), "LEAVING is the last heartbeat");
        assertTrue(last.getPartitions().isEmpty());
        assertTrue(tasks.closed());
        assertTrue(model.closed());
        assertTrue(transactional.closed());
        assertTrue(plain.closed());
    }

    @Test
    void killStopsWithoutLeavingAndWithoutCommitting() throws InterruptedException {
        WorkerAgent agent = agent();
        TopicPartition p1 = new TopicPartition(Fixtures.TASKS, 1);
        tasks.schedulePollTask(() -> {
            ownFromTheStart(p1);
            // no model version 0 ever comes: the agent waits for it
            tasks.addRecord(MockClients.consumerRecord(
                    Fixtures.TASKS, 1, 0, "w1", Fixtures.bytes(registry, Fixtures.assignment("job", 1, "w1", 3))));
        });
        agent.start();
        eventually(
                "the partition is announced",
                () -> heartbeats().stream().anyMatch(h -> h.getPartitions().equals(List.of(1))));

        agent.kill();

        assertFalse(agent.isRunning());
        assertTrue(heartbeats().stream().noneMatch(h -> h.getStatus() == WorkerStatus.LEAVING));
        assertEquals(0, transactional.commitCount());
        assertTrue(transactional.consumerGroupOffsetsHistory().isEmpty());
        assertTrue(tasks.closed());
        assertTrue(transactional.closed());
        assertTrue(agent.failure().isEmpty());
    }

    @Test
    void closeBeforeStartReleasesTheClients() {
        WorkerAgent agent = agent();
        agent.close();
        assertFalse(agent.isRunning());
        assertTrue(tasks.closed());
        assertTrue(model.closed());
        assertTrue(transactional.closed());
        assertTrue(plain.closed());
        assertTrue(heartbeats().isEmpty(), "an agent that never joined says nothing");
    }

    @Test
    void aFencedAgentStopsWithoutSpeakingForItsSuccessor() throws InterruptedException {
        modelTopicWithVersion0();
        WorkerAgent agent = agent();
        TopicPartition p0 = new TopicPartition(Fixtures.TASKS, 0);
        tasks.schedulePollTask(() -> {
            ownFromTheStart(p0);
            transactional.fenceProducer(); // another agent with our worker id started
            tasks.addRecord(MockClients.consumerRecord(
                    Fixtures.TASKS, 0, 0, "w1", Fixtures.bytes(registry, Fixtures.assignment("job", 1, "w1", 1))));
        });
        agent.start();

        assertTrue(agent.awaitStopped(PATIENCE));
        assertTrue(agent.failure().isPresent());
        assertTrue(
                KafkaErrors.isFenced(agent.failure().get()),
                agent.failure().get().toString());
        assertTrue(heartbeats().stream().noneMatch(h -> h.getStatus() == WorkerStatus.LEAVING));
    }

    /** One assignment of one task of "job" round 1 at offset 0 of partition 0. */
    private ConsumerRecord<byte[], byte[]> oneTask() {
        return MockClients.consumerRecord(
                Fixtures.TASKS, 0, 0, "w1", Fixtures.bytes(registry, Fixtures.assignment("job", 1, "w1", 1)));
    }

    /** Partition 0 holding {@link #oneTask()}, at the agent's first poll. */
    private TopicPartition oneTaskOnPartition0() {
        TopicPartition p0 = new TopicPartition(Fixtures.TASKS, 0);
        tasks.schedulePollTask(() -> {
            ownFromTheStart(p0);
            tasks.addRecord(oneTask());
        });
        return p0;
    }

    @Test
    void aTransientErrorRunsTheAssignmentAgain() throws InterruptedException {
        modelTopicWithVersion0();
        WorkerAgent agent = agent();
        TopicPartition p0 = oneTaskOnPartition0();
        transactional.commitTransactionException = new KafkaException("the coordinator went away");
        agent.start();

        eventually("the failed commit is retried", () -> agent.metrics().retries() == 1);
        transactional.commitTransactionException = null; // the coordinator is back
        // the agent sought back to the record; a MockConsumer, unlike Kafka, delivers it only once
        tasks.schedulePollTask(() -> tasks.addRecord(oneTask()));
        eventually("the assignment is done", () -> Long.valueOf(1).equals(committedOffset(p0)));
        assertTrue(agent.isRunning());
        assertTrue(agent.failure().isEmpty());
        assertEquals(1, agent.metrics().retries());
        assertEquals(1, transactional.commitCount(), "the aborted transaction left nothing behind");
        assertEquals(
                1, sentTo(transactional, Fixtures.TOPICS.gradients().name()).size());
    }

    /**
     * An agent frozen past its session (SIGSTOP) wakes to a commit the group no longer knows. Its
     * next poll rejoins the group, and every other agent's rebalance waits for that rejoin, so it
     * runs the assignment again at once: here the pause for other errors is an hour.
     */
    @Test
    void aLostGroupMembershipRunsTheAssignmentAgainWithoutAPause() throws InterruptedException {
        modelTopicWithVersion0();
        WorkerAgent agent = agent(Duration.ofHours(1));
        TopicPartition p0 = oneTaskOnPartition0();
        transactional.commitTransactionException = new KafkaException(
                "commit failed",
                new CommitFailedException(
                        "consumer group metadata mismatch: The coordinator is not aware of this member."));
        agent.start();

        eventually("the failed commit is retried", () -> agent.metrics().retries() == 1);
        transactional.commitTransactionException = null;
        tasks.schedulePollTask(() -> tasks.addRecord(oneTask()));
        eventually(
                "the assignment is done, with no pause", () -> Long.valueOf(1).equals(committedOffset(p0)));
        assertTrue(agent.isRunning());
        assertEquals(1, agent.metrics().retries());
    }

    @Test
    void aFencedProducerWrappedInAKafkaExceptionStopsTheAgentWithoutSpeakingForItsSuccessor()
            throws InterruptedException {
        modelTopicWithVersion0();
        WorkerAgent agent = agent();
        TopicPartition p0 = oneTaskOnPartition0();
        transactional.commitTransactionException =
                new KafkaException("commit failed", new ProducerFencedException("another agent w1 started"));
        agent.start();

        assertTrue(agent.awaitStopped(PATIENCE));
        Throwable failure = agent.failure().orElseThrow();
        assertTrue(KafkaErrors.isFenced(failure), failure.toString());
        assertEquals(0, agent.metrics().retries(), "fatal: not retried");
        assertNull(committedOffset(p0));
        assertTrue(heartbeats().stream().noneMatch(h -> h.getStatus() == WorkerStatus.LEAVING));
    }
}
