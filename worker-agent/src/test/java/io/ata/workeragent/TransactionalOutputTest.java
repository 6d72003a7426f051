package io.ata.workeragent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.MockClients;
import io.ata.testsupport.Records;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transactions of one assignment on Kafka's mock producer: a task that is not the last commits
 * on the publisher's thread while the caller goes on, tasks that finish meanwhile share the next
 * transaction, and a failed commit stops everything after it, the offset commit included.
 */
class TransactionalOutputTest {

    private static final long WAIT_SECONDS = 20;
    private static final Set<Thread.State> BLOCKED_OR_ENDED =
            Set.of(Thread.State.WAITING, Thread.State.TIMED_WAITING, Thread.State.TERMINATED);

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final AgentMetrics metrics = new AgentMetrics(new SimpleMeterRegistry(), "w1");
    private TransactionPublisher publisher;
    private final ConsumerRecord<byte[], byte[]> source =
            MockClients.consumerRecord(Fixtures.TASKS, 3, 41, "w1", new byte[] {1});
    private final AtomicInteger payloads = new AtomicInteger();
    private final ParkedAssignments parked = new ParkedAssignments();

    /** A mock producer whose commits wait for the test to let them through, and that logs the order of calls. */
    private static final class GatedProducer extends MockProducer<String, byte[]> {
        final List<String> calls = new ArrayList<>();
        final CountDownLatch commitGate = new CountDownLatch(1);
        final CountDownLatch commitStarted = new CountDownLatch(1);
        volatile String commitThread;

        GatedProducer() {
            super(true, null, new StringSerializer(), new ByteArraySerializer());
        }

        @Override
        public synchronized void beginTransaction() {
            calls.add("begin");
            super.beginTransaction();
        }

        @Override
        public void commitTransaction() {
            synchronized (this) {
                calls.add("commit");
            }
            commitThread = Thread.currentThread().getName();
            commitStarted.countDown();
            try {
                commitGate.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            super.commitTransaction();
        }
    }

    @AfterEach
    void closeCommitThread() {
        if (publisher != null) {
            publisher.close();
        }
    }

    private TransactionalOutput output(MockProducer<String, byte[]> producer) {
        return output(producer, source);
    }

    private TransactionalOutput output(MockProducer<String, byte[]> producer, ConsumerRecord<byte[], byte[]> source) {
        if (publisher == null) {
            publisher = new TransactionPublisher(
                    producer,
                    "ata-agent-w1-commit",
                    TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES,
                    TransactionPublisher.DEFAULT_MAX_TRANSACTION_BYTES,
                    metrics);
        }
        return new TransactionalOutput(
                producer,
                () -> new ConsumerGroupMetadata("ata.workers"),
                Fixtures.TOPICS,
                new AgentCodec(registry),
                source,
                publisher,
                Chunks.DEFAULT_CHUNK_BYTES,
                () -> "w1-1-" + payloads.incrementAndGet(),
                parked);
    }

    private static TaskResult result(String taskId) {
        return Records.result("job", 1, 0, taskId, "w1", new double[1], 5.0)
                .setLoss(1.0)
                .setSamples(1)
                .build();
    }

    /** The timing the runner publishes with {@code result(taskId)}, over 5 ms. */
    private static TaskTiming timing(String taskId) {
        return AssignmentRunner.timingOf(result(taskId), TimingStatus.COMPLETED, 0, 5);
    }

    @Test
    void tasksThatFinishWhileACommitIsInFlightGoOutTogetherInTheNextTransaction() throws Exception {
        GatedProducer producer = new GatedProducer();
        producer.initTransactions();
        TransactionalOutput out = output(producer);

        out.publishTask(result("job/1/0"), timing("job/1/0"), false); // returns with its commit held at the gate
        assertTrue(producer.commitStarted.await(WAIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("ata-agent-w1-commit", producer.commitThread);
        // the next task is handed over without waiting for that commit
        out.publishTask(result("job/1/1"), timing("job/1/1"), false);
        assertTrue(publisher.busy());

        // The last task waits for every commit before it returns.
        List<Throwable> failures = new ArrayList<>();
        Thread last = new Thread(() -> {
            try {
                out.publishTask(result("job/1/2"), timing("job/1/2"), true);
            } catch (RuntimeException e) {
                failures.add(e); // e.g. the mock refusing a transaction begun beside one committing
            }
        });
        last.start();
        await("the last task to block")
                .atMost(WAIT_SECONDS, TimeUnit.SECONDS)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> BLOCKED_OR_ENDED.contains(last.getState()));
        assertTrue(last.isAlive(), "the last task returned before its commit");
        synchronized (producer) {
            assertEquals(List.of("begin", "commit"), producer.calls, "nothing begins beside the commit in flight");
        }
        producer.commitGate.countDown();
        last.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(last.isAlive());
        assertEquals(List.of(), failures);

        // two transactions for three tasks: the first alone, the two that waited together
        assertEquals(List.of("begin", "commit", "begin", "commit"), producer.calls);
        assertEquals(6, producer.history().size()); // result and timing of each task
        assertEquals(
                Map.of(new TopicPartition(Fixtures.TASKS, 3), new OffsetAndMetadata(42)),
                producer.consumerGroupOffsetsHistory().get(0).get("ata.workers"));
        assertEquals(1, producer.consumerGroupOffsetsHistory().size()); // the offset only with the last task
        assertFalse(publisher.busy());
        assertEquals(2, metrics.transactionsCommitted());
        assertEquals(0, metrics.transactionsAborted());
    }

    /** The offsets of partition 3 of the tasks topic committed so far, in order. */
    private static List<Long> committedOffsets(MockProducer<String, byte[]> producer) {
        return producer.consumerGroupOffsetsHistory().stream()
                .map(c -> c.get("ata.workers")
                        .get(new TopicPartition(Fixtures.TASKS, 3))
                        .offset())
                .toList();
    }

    @Test
    void theOffsetCommittedNeverPassesAParkedRecordAndGoesPastEverythingDoneOnceItRuns() {
        MockProducer<String, byte[]> producer = MockClients.producer();
        producer.initTransactions();
        ConsumerRecord<byte[], byte[]> at41 = source;
        ConsumerRecord<byte[], byte[]> at42 = MockClients.consumerRecord(Fixtures.TASKS, 3, 42, "w1", new byte[] {2});
        ConsumerRecord<byte[], byte[]> at43 = MockClients.consumerRecord(Fixtures.TASKS, 3, 43, "w1", new byte[] {3});
        ConsumerRecord<byte[], byte[]> at44 = MockClients.consumerRecord(Fixtures.TASKS, 3, 44, "w1", new byte[] {4});

        output(producer, at41).park(Records.assignment("job", 2, "w1", 1).build());
        output(producer, at42).publishTask(result("job/1/0"), timing("job/1/0"), true);
        output(producer, at43).park(Records.assignment("job", 2, "w1", 1).build());
        output(producer, at44).markDone();
        assertEquals(List.of(41L, 41L), committedOffsets(producer), "held at the oldest parked record");

        output(producer, at41).markDone(); // the parked one ran (or was skipped)
        assertEquals(43L, committedOffsets(producer).get(2), "up to the next parked one, not past it");
        output(producer, at43).publishTask(result("job/2/0"), timing("job/2/0"), true);
        assertEquals(List.of(41L, 41L, 43L, 45L), committedOffsets(producer), "past the highest done");
        assertEquals(0, parked.size());
        // another partition is not held back by them
        output(producer, MockClients.consumerRecord(Fixtures.TASKS, 5, 7, "w1", new byte[] {5}))
                .markDone();
        assertEquals(
                new OffsetAndMetadata(8),
                producer.consumerGroupOffsetsHistory()
                        .get(4)
                        .get("ata.workers")
                        .get(new TopicPartition(Fixtures.TASKS, 5)));
    }

    @Test
    void aFailedCommitDoesNotCountTheRecordAsDone() {
        MockProducer<String, byte[]> producer = failingCommits();
        ConsumerRecord<byte[], byte[]> at42 = MockClients.consumerRecord(Fixtures.TASKS, 3, 42, "w1", new byte[] {2});
        output(producer, source).park(Records.assignment("job", 2, "w1", 1).build());
        assertThrows(KafkaException.class, () -> output(producer, at42).markDone());

        producer.commitTransactionException = null;
        output(producer, source).markDone();
        assertEquals(List.of(42L), committedOffsets(producer), "past the parked one only: 42 was not done");
    }

    private static final KafkaException BROKEN = new KafkaException("coordinator went away");

    /** A mock producer whose every commit fails with {@link #BROKEN}. */
    private static MockProducer<String, byte[]> failingCommits() {
        MockProducer<String, byte[]> producer = MockClients.producer();
        producer.initTransactions();
        producer.commitTransactionException = BROKEN;
        return producer;
    }

    @Test
    void resultsGoToTheGradientsPartitionOfTheAssignmentsTasksPartition() {
        // the source assignment is on tasks partition 3; gradients has 2 partitions: 3 mod 2 = 1
        String gradients = Fixtures.TOPICS.gradients().name();
        MockProducer<String, byte[]> producer = MockClients.producer(MockClients.cluster(Map.of(gradients, 2)));
        producer.initTransactions();

        output(producer).publishTask(result("job/1/0"), timing("job/1/0"), true);

        var result = producer.history().get(0);
        assertEquals(gradients, result.topic());
        assertEquals(1, result.partition(), "not the job key's partition: the agent's own");
        assertEquals("job", result.key());
    }

    @Test
    void aFailedCommitIsThrownByTheNextCallAndNothingAfterItIsCommitted() {
        MockProducer<String, byte[]> producer = failingCommits();
        TransactionalOutput out = output(producer);

        out.publishTask(result("job/1/0"), timing("job/1/0"), false);
        KafkaException thrown =
                assertThrows(KafkaException.class, () -> out.publishTask(result("job/1/1"), timing("job/1/1"), true));

        assertSame(BROKEN, thrown);
        assertTrue(producer.transactionAborted(), "the failed transaction is aborted");
        assertEquals(1, metrics.transactionsAborted());
        assertEquals(0, metrics.transactionsCommitted());
        assertEquals(0, producer.commitCount());
        assertTrue(producer.consumerGroupOffsetsHistory().isEmpty(), "the assignment's offset is not committed");
        out.awaitPublished(); // reported once: nothing is pending any more
    }

    @Test
    void awaitPublishedReportsAFailedCommitWhenNoOtherCallFollows() {
        TransactionalOutput out = output(failingCommits());

        out.publishTask(result("job/1/0"), timing("job/1/0"), false);

        assertSame(BROKEN, assertThrows(KafkaException.class, out::awaitPublished));
    }

    private TaskResult decodeResult(byte[] value) {
        return Fixtures.TOPICS.gradients().valueSerde(registry).deserializer().deserialize("t", value);
    }

    @Test
    void aGradientLargerThanOneRecordGoesOutAsSlicesInTheTasksOneTransaction() {
        MockProducer<String, byte[]> producer = MockClients.producer();
        producer.initTransactions();
        byte[] gradient = new byte[2_000_000]; // 500,000 float32 values
        new java.util.SplittableRandom(3).nextBytes(gradient);
        TaskResult large = TaskResult.newBuilder(result("job/1/0"))
                .setGradient(ByteBuffer.wrap(gradient))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setSamples(32)
                .build();

        output(producer).publishTask(large, timing("job/1/0"), true);

        assertEquals(1, producer.commitCount(), "one transaction");
        assertEquals(1, producer.consumerGroupOffsetsHistory().size(), "with the assignment's offset");
        List<org.apache.kafka.clients.producer.ProducerRecord<String, byte[]>> sent = producer.history();
        assertEquals(4, sent.size(), "three slices and the timing");
        java.io.ByteArrayOutputStream joined = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < 3; i++) {
            var record = sent.get(i);
            assertEquals(Fixtures.TOPICS.gradients().name(), record.topic());
            assertEquals("job", record.key());
            assertTrue(record.value().length < 1_048_576, "fits Kafka's default max.request.size");
            TaskResult slice = decodeResult(record.value());
            assertEquals(i, slice.getChunk());
            assertEquals(3, slice.getChunks());
            assertEquals("w1-1-1", slice.getPayloadId());
            assertEquals("job/1/0", slice.getTaskId());
            assertEquals(TensorEncoding.FLOAT32_LE, slice.getEncoding());
            assertEquals(32, slice.getSamples());
            assertEquals(5.0, slice.getComputeMs(), 0);
            assertEquals(
                    i < 2 ? Chunks.DEFAULT_CHUNK_BYTES : 200_000,
                    slice.getGradient().remaining());
            byte[] bytes = new byte[slice.getGradient().remaining()];
            slice.getGradient().get(bytes);
            joined.writeBytes(bytes);
        }
        assertTrue(java.util.Arrays.equals(gradient, joined.toByteArray()), "the slices are the gradient, in order");
        assertEquals(Fixtures.TOPICS.timings().name(), sent.get(3).topic());

        output(producer).publishTask(large, timing("job/1/0"), true);
        assertEquals("w1-1-2", decodeResult(producer.history().get(4).value()).getPayloadId(), "a new publication");
    }

    @Test
    void aGradientThatFitsOneRecordGoesOutAsIt() {
        MockProducer<String, byte[]> producer = MockClients.producer();
        producer.initTransactions();
        TaskResult fits = TaskResult.newBuilder(result("job/1/0"))
                .setGradient(ByteBuffer.wrap(new byte[Chunks.DEFAULT_CHUNK_BYTES]))
                .build();

        output(producer).publishTask(fits, timing("job/1/0"), true);

        assertEquals(2, producer.history().size());
        TaskResult one = decodeResult(producer.history().get(0).value());
        assertEquals(0, one.getChunk());
        assertEquals(1, one.getChunks());
        assertEquals("", one.getPayloadId());
        assertEquals(Chunks.DEFAULT_CHUNK_BYTES, one.getGradient().remaining());
        assertEquals(0, payloads.get(), "no payload id for one record");
    }
}
