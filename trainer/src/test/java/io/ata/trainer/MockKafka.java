package io.ata.trainer;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.Topics;
import io.ata.testsupport.MockClients;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's mock clients wired as the trainer's: one consumer group member on a one-partition
 * {@code gradients} topic, a fresh reader of the {@code model}, {@code optimizer} and
 * {@code evaluations} topics each time the trainer asks (holding what the test {@link #store}d, or
 * {@link #latestModel}: what is "committed" in Kafka), and a new producer each time the trainer
 * creates one, which knows one partition of every topic. The mocks know nothing of transactions
 * across clients: the test plays Kafka's part, e.g. by storing what a producer committed.
 */
final class MockKafka implements KafkaClientFactory {
    final Topics topics;
    final TopicPartition gradientsPartition;
    final MockConsumer<byte[], byte[]> gradients = new MockConsumer<>("earliest");
    /** The transactional producers the trainer created, in order. */
    final List<MockProducer<String, byte[]>> producers = new CopyOnWriteArrayList<>();
    /** The plain producers (the overdue watch's: requests for backups, not the round's state). */
    final List<MockProducer<String, byte[]>> plainProducers = new CopyOnWriteArrayList<>();
    /** The overdue watch's readers of the tasks topic, which holds nothing here. */
    final List<MockConsumer<byte[], byte[]>> taskWatchers = new CopyOnWriteArrayList<>();

    final List<MockConsumer<byte[], byte[]>> modelReaders = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> producerProperties = new CopyOnWriteArrayList<>();
    final List<Map<String, Object>> consumerProperties = new CopyOnWriteArrayList<>();
    /** The value of the job's latest record on the model topic, null if none (unless records were stored). */
    volatile byte[] latestModel;

    /** The records on the topics the trainer reads at start, in order, by topic. */
    private final Map<String, List<ProducerRecord<String, byte[]>>> stored = new ConcurrentHashMap<>();

    private final String job;
    private final Cluster cluster;

    MockKafka(Topics topics, String job, long gradientsEndOffset) {
        this.topics = topics;
        this.job = job;
        String topic = topics.gradients().name();
        this.gradientsPartition = new TopicPartition(topic, 0);
        gradients.updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
        gradients.updateBeginningOffsets(Map.of(gradientsPartition, 0L));
        gradients.updateEndOffsets(Map.of(gradientsPartition, gradientsEndOffset));
        Map<String, Integer> onePartitionEach = new HashMap<>();
        topics.all().forEach(def -> onePartitionEach.put(def.name(), 1));
        this.cluster = MockClients.cluster(onePartitionEach);
    }

    @Override
    public Producer<String, byte[]> producer(Map<String, Object> properties) {
        producerProperties.add(properties);
        MockProducer<String, byte[]> producer = MockClients.producer(cluster);
        (properties.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG) ? producers : plainProducers).add(producer);
        return producer;
    }

    @Override
    public Consumer<byte[], byte[]> consumer(Map<String, Object> properties) {
        consumerProperties.add(properties);
        if (properties.containsKey(ConsumerConfig.GROUP_ID_CONFIG)) {
            return gradients;
        }
        if (String.valueOf(properties.get(CommonClientConfigs.CLIENT_ID_CONFIG)).endsWith("-deadlines")) {
            MockConsumer<byte[], byte[]> watcher = new MockConsumer<>("latest");
            taskWatchers.add(watcher);
            return watcher;
        }
        Reader reader = new Reader();
        modelReaders.add(reader);
        return reader;
    }

    /** Kafka now holds {@code records} too (on the model, optimizer and evaluations topics). */
    void store(List<ProducerRecord<String, byte[]>> records) {
        for (ProducerRecord<String, byte[]> r : records) {
            stored.computeIfAbsent(r.topic(), t -> new CopyOnWriteArrayList<>()).add(r);
        }
    }

    /** Kafka now holds what {@code producer} committed. */
    void storeCommitted(MockProducer<String, byte[]> producer) {
        store(producer.history());
    }

    private List<ProducerRecord<String, byte[]>> recordsOf(String topic) {
        List<ProducerRecord<String, byte[]>> records = stored.getOrDefault(topic, List.of());
        byte[] model = latestModel;
        if (records.isEmpty() && topic.equals(topics.model().name()) && model != null) {
            return List.of(new ProducerRecord<>(topic, job, model));
        }
        return records;
    }

    /** A reader of the topics the trainer reads at start: their records appear once assigned. */
    private final class Reader extends MockConsumer<byte[], byte[]> {
        Reader() {
            super("earliest");
            for (String topic : List.of(
                    topics.model().name(),
                    topics.optimizer().name(),
                    topics.evaluations().name())) {
                TopicPartition tp = new TopicPartition(topic, 0);
                updatePartitions(topic, List.of(new PartitionInfo(topic, 0, null, null, null)));
                updateBeginningOffsets(Map.of(tp, 0L));
                updateEndOffsets(Map.of(tp, (long) recordsOf(topic).size()));
            }
        }

        @Override
        public synchronized void assign(Collection<TopicPartition> partitions) {
            super.assign(partitions);
            for (TopicPartition tp : partitions) {
                List<ProducerRecord<String, byte[]>> records = recordsOf(tp.topic());
                for (int offset = 0; offset < records.size(); offset++) {
                    ProducerRecord<String, byte[]> r = records.get(offset);
                    addRecord(MockClients.consumerRecord(tp.topic(), 0, offset, r.key(), r.value()));
                }
            }
        }
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
        return MockClients.consumerRecord(gradientsPartition.topic(), 0, offset, key, value);
    }
}
