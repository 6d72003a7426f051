package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.testsupport.MockClients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The watch on the job's partition of the allocations topic, against Kafka's mock consumer. */
class AssignmentWatchTest extends MockKafkaTrainerTest {
    private final String allocations = topics.allocations().name();
    private final MockProducer<String, byte[]> producer = MockClients.producer();
    private final AllocationsFixture fixture = new AllocationsFixture(topics, registry);

    AssignmentWatchTest() {
        super("w.");
    }

    @Test
    void anAssignmentCommittedWhileTheWatchLooksUpWhereToStartIsRead() throws Exception {
        TopicPartition partition = new TopicPartition(allocations, 0);
        byte[] value = bytes(assignment(JOB, "w1"));
        // The partition is empty when the watch asks where to start reading; the round's OPENED
        // event went out meanwhile and its assignment is committed before the watch's first poll.
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("latest") {
            @Override
            public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                    Map<TopicPartition, Long> timestamps) {
                addRecord(MockClients.consumerRecord(allocations, 0, 0, JOB, value));
                updateEndOffsets(Map.of(partition, 1L));
                Map<TopicPartition, OffsetAndTimestamp> nothingSince = new HashMap<>();
                timestamps.keySet().forEach(tp -> nothingSince.put(tp, null));
                return nothingSince;
            }
        };
        withPartitions(consumer, 1);
        RoundAssignments assignments = watching(consumer, () -> {
            await(() -> !assignmentsOf(consumer).holdersOf(JOB + "/1/0").isEmpty(), "the assignment read");
        });
        assertEquals(List.of("w1"), assignments.holdersOf(JOB + "/1/0"));
        assertTrue(producer.closed(), "the watch's own producer is closed with it");
    }

    @Test
    void readsTheJobsPartitionOnlySkipsOtherJobsAndDeadLettersWhatItCannotRead() throws Exception {
        int partitions = 8;
        int mine = Topics.partitionOfJob(JOB, partitions);
        String other = IntStream.range(0, 1000)
                .mapToObj(i -> "other-" + i)
                .filter(j -> Topics.partitionOfJob(j, partitions) == mine)
                .findFirst()
                .orElseThrow();
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
            @Override
            public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                    Map<TopicPartition, Long> timestamps) {
                Map<TopicPartition, OffsetAndTimestamp> fromStart = new HashMap<>();
                timestamps.keySet().forEach(tp -> fromStart.put(tp, new OffsetAndTimestamp(0, 0)));
                return fromStart;
            }
        };
        withPartitions(consumer, partitions);
        List<String> letters = new ArrayList<>();
        RoundAssignments assignments = watching(consumer, () -> {
            await(() -> consumer.assignment().equals(Set.of(new TopicPartition(allocations, mine))), "assigned");
            consumer.addRecord(MockClients.consumerRecord(allocations, mine, 0, other, bytes(assignment(other, "w9"))));
            consumer.addRecord(MockClients.consumerRecord(allocations, mine, 1, JOB, new byte[] {0, 1, 2}));
            consumer.addRecord(MockClients.consumerRecord(allocations, mine, 2, null, bytes(assignment(JOB, "w8"))));
            consumer.addRecord(MockClients.consumerRecord(allocations, mine, 3, JOB, bytes(assignment(JOB, "w1"))));
            await(() -> !assignmentsOf(consumer).holdersOf(JOB + "/1/0").isEmpty(), "the job's assignment read");
            await(() -> producer.history().size() >= 2, "two dead letters");
            producer.history().forEach(r -> letters.add(r.topic()));
        });
        assertEquals(List.of("w1"), assignments.holdersOf(JOB + "/1/0"), "only the record keyed by the job counts");
        assertEquals(List.of(topics.deadLetters().name(), topics.deadLetters().name()), letters);
        List<DeadLetter> read = producer.history().stream()
                .map(r ->
                        topics.deadLetters().valueSerde(registry).deserializer().deserialize(r.topic(), r.value()))
                .toList();
        assertEquals(List.of(1L, 2L), read.stream().map(DeadLetter::getOffset).toList());
        assertTrue(
                read.get(1).getReason().contains("no job of partition"),
                read.get(1).getReason());
    }

    private TaskAssignment assignment(String job, String worker) {
        return AllocationsFixture.assignment(job, worker);
    }

    private byte[] bytes(TaskAssignment a) {
        return fixture.bytes(a);
    }

    private void withPartitions(MockConsumer<byte[], byte[]> consumer, int count) {
        fixture.withPartitions(consumer, count);
    }

    private final Map<MockConsumer<byte[], byte[]>, RoundAssignments> watched = new HashMap<>();

    private RoundAssignments assignmentsOf(MockConsumer<byte[], byte[]> consumer) {
        return watched.get(consumer);
    }

    /** Runs a watch of round 1 on {@code consumer} while {@code body} runs; its view of the round. */
    private RoundAssignments watching(MockConsumer<byte[], byte[]> consumer, ThrowingRunnable body) throws Exception {
        KafkaClientFactory clients = new KafkaClientFactory() {
            @Override
            public Producer<String, byte[]> producer(Map<String, Object> config) {
                return producer;
            }

            @Override
            public Consumer<byte[], byte[]> consumer(Map<String, Object> config) {
                return consumer;
            }
        };
        TrainerConfig config = fixture.config(JOB, meters);
        RoundAssignments assignments = new RoundAssignments(JOB);
        assignments.roundOpened(1, System.currentTimeMillis());
        watched.put(consumer, assignments);
        AssignmentWatch watch = new AssignmentWatch(
                config,
                registry,
                clients,
                assignments,
                new TrainerMetrics(new SimpleMeterRegistry(), JOB, new JobProgress()),
                System.currentTimeMillis());
        Thread thread = new Thread(watch, "watch");
        thread.start();
        try {
            body.run();
        } finally {
            watch.stop();
            thread.join(10_000);
        }
        return assignments;
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
