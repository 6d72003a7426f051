package io.ata.trainer;

import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.testsupport.Records;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** What the tests of the watches over {@code allocations} share: its partitions on a mock consumer, and assignments as the broker writes them. */
final class AllocationsFixture {
    private final Topics topics;
    private final SchemaRegistryClient registry;
    private final String allocations;

    AllocationsFixture(Topics topics, SchemaRegistryClient registry) {
        this.topics = topics;
        this.registry = registry;
        this.allocations = topics.allocations().name();
    }

    /** A job of B = 1 on the quadratic test problem, on these topics. */
    TrainerConfig config(String job, MeterRegistry meters) {
        return TrainerConfig.builder()
                .bootstrapServers("mock:9092")
                .topicPrefix(topics.prefix())
                .job(job)
                .batch(1)
                .maxRounds(3)
                .objective(MockKafkaTrainerTest.SMALL)
                .optimizer(new SgdOptimizer(0.1))
                .meterRegistry(meters)
                .build();
    }

    /** Round 1's task {@code <job>/1/0} assigned to {@code worker}, without a deadline. */
    static TaskAssignment assignment(String job, String worker) {
        return Records.assignment(job, 1, worker, 0)
                .setTaskIds(List.of(job + "/1/0"))
                .setBatch(1)
                .setCreatedMs(0)
                .setDeadlineMs(0)
                .setBackupOf("")
                .build();
    }

    /** {@code a} as the broker writes it to {@code allocations}. */
    byte[] bytes(TaskAssignment a) {
        return topics.allocations().valueSerde(registry).serializer().serialize(allocations, a);
    }

    /** The topic with {@code count} empty partitions, as {@code consumer} sees it. */
    void withPartitions(MockConsumer<byte[], byte[]> consumer, int count) {
        List<PartitionInfo> infos = new ArrayList<>();
        Map<TopicPartition, Long> zeros = new HashMap<>();
        for (int p = 0; p < count; p++) {
            infos.add(new PartitionInfo(allocations, p, null, null, null));
            zeros.put(new TopicPartition(allocations, p), 0L);
        }
        consumer.updatePartitions(allocations, infos);
        consumer.updateBeginningOffsets(zeros);
        consumer.updateEndOffsets(zeros);
    }
}
