package io.ata.trainer;

import io.ata.schemas.Topics;
import io.ata.schemas.kafka.KafkaClientFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's mock clients wired as the trainer's: one consumer group member on a one-partition
 * {@code gradients} topic, a fresh reader of the {@code model} topic each time the trainer asks
 * (holding {@link #latestModel}, the model version "committed" in Kafka), and a new producer each
 * time the trainer creates one. The mocks know nothing of transactions across clients: the test
 * plays Kafka's part, e.g. by setting {@link #latestModel} from what a producer committed.
 */
final class MockKafka implements KafkaClientFactory {
    final Topics topics;
    final TopicPartition gradientsPartition;
    final MockConsumer<byte[], byte[]> gradients = new MockConsumer<>("earliest");
    final List<MockProducer<String, byte[]>> producers = new CopyOnWriteArrayList<>();
    final List<MockConsumer<byte[], byte[]>> modelReaders = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> producerProperties = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> consumerProperties = new CopyOnWriteArrayList<>();
    /** The value of the job's latest record on the model topic, null if none. */
    volatile byte[] latestModel;

    private final String job;

    MockKafka(Topics topics, String job, long gradientsEndOffset) {
        this.topics = topics;
        this.job = job;
        String topic = topics.gradients().name();
        this.gradientsPartition = new TopicPartition(topic, 0);
        gradients.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
        gradients.updateBeginningOffsets(Map.of(gradientsPartition, 0L));
        gradients.updateEndOffsets(Map.of(gradientsPartition, gradientsEndOffset));
    }

    @Override
    public Producer<String, byte[]> producer(Map<String, Object> properties) {
        producerProperties.add(properties);
        MockProducer<String, byte[]> producer =
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer());
        producers.add(producer);
        return producer;
    }

    @Override
    public Consumer<byte[], byte[]> consumer(Map<String, Object> properties) {
        consumerProperties.add(properties);
        if (properties.containsKey(ConsumerConfig.GROUP_ID_CONFIG)) {
            return gradients;
        }
        String topic = topics.model().name();
        TopicPartition tp = new TopicPartition(topic, 0);
        MockConsumer<byte[], byte[]> reader = new MockConsumer<>("earliest");
        reader.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
        reader.updateBeginningOffsets(Map.of(tp, 0L));
        byte[] model = latestModel;
        reader.updateEndOffsets(Map.of(tp, model == null ? 0L : 1L));
        if (model != null) {
            reader.schedulePollTask(() ->
                    reader.addRecord(new ConsumerRecord<>(topic, 0, 0, job.getBytes(StandardCharsets.UTF_8), model)));
        }
        modelReaders.add(reader);
        return reader;
    }

    MockProducer<String, byte[]> producer(int i) {
        return producers.get(i);
    }

    /** Assigns the gradients partition at the trainer's next poll. */
    void assignGradientsPartition() {
        gradients.schedulePollTask(() -> gradients.rebalance(List.of(gradientsPartition)));
    }

    /** Adds records to the gradients partition at the trainer's next poll. */
    void addGradients(List<ConsumerRecord<byte[], byte[]>> records) {
        gradients.schedulePollTask(() -> records.forEach(gradients::addRecord));
    }

    ConsumerRecord<byte[], byte[]> gradientRecord(long offset, String key, byte[] value) {
        return new ConsumerRecord<>(
                gradientsPartition.topic(),
                0,
                offset,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value);
    }
}
