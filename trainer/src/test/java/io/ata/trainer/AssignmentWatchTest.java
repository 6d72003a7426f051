package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.TaskAssignment;
import io.ata.testsupport.MockClients;
import io.ata.testsupport.Records;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The watch's start on the tasks topic, against Kafka's mock consumer. */
class AssignmentWatchTest extends MockKafkaTrainerTest {

    AssignmentWatchTest() {
        super("w.");
    }

    @Test
    void anAssignmentCommittedWhileTheWatchLooksUpWhereToStartIsRead() throws Exception {
        String tasks = topics.tasks().name();
        TopicPartition partition = new TopicPartition(tasks, 0);
        TaskAssignment assignment = Records.assignment(JOB, 1, "w1", 0)
                .setTaskIds(List.of(JOB + "/1/0"))
                .setBatch(1)
                .setCreatedMs(0)
                .setDeadlineMs(0)
                .setBackupOf("")
                .build();
        byte[] value = topics.tasks().valueSerde(registry).serializer().serialize(tasks, assignment);
        // The partition is empty when the watch asks where to start reading; the round's OPENED
        // event went out meanwhile and its assignment is committed before the watch's first poll.
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("latest") {
            @Override
            public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                    Map<TopicPartition, Long> timestamps) {
                addRecord(MockClients.consumerRecord(tasks, 0, 0, "w1", value));
                updateEndOffsets(Map.of(partition, 1L));
                Map<TopicPartition, OffsetAndTimestamp> nothingSince = new HashMap<>();
                timestamps.keySet().forEach(tp -> nothingSince.put(tp, null));
                return nothingSince;
            }
        };
        consumer.updatePartitions(tasks, List.of(new PartitionInfo(tasks, 0, null, null, null)));
        consumer.updateBeginningOffsets(Map.of(partition, 0L));
        consumer.updateEndOffsets(Map.of(partition, 0L));
        KafkaClientFactory clients = new KafkaClientFactory() {
            @Override
            public Producer<String, byte[]> producer(Map<String, Object> config) {
                return MockClients.producer();
            }

            @Override
            public Consumer<byte[], byte[]> consumer(Map<String, Object> config) {
                return consumer;
            }
        };
        TrainerConfig config = TrainerConfig.builder()
                .bootstrapServers("mock:9092")
                .topicPrefix("w.")
                .job(JOB)
                .batch(1)
                .maxRounds(3)
                .objective(SMALL)
                .optimizer(new SgdOptimizer(0.1))
                .meterRegistry(meters)
                .build();
        RoundAssignments assignments = new RoundAssignments(JOB);
        assignments.roundOpened(1, System.currentTimeMillis());
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
            await(() -> !assignments.holdersOf(JOB + "/1/0").isEmpty(), "the assignment read");
            assertEquals(List.of("w1"), assignments.holdersOf(JOB + "/1/0"));
        } finally {
            watch.stop();
            thread.join(10_000);
        }
    }
}
