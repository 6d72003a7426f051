package io.ata.schemas.registry;

import io.ata.schemas.TopicConfigs;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's write-ahead log: a compacted, single-partition Kafka topic holding every schema
 * version and compatibility level ({@link SchemaLogRecord}), as Confluent's registry keeps its
 * {@code _schemas} topic.
 *
 * <p>The registry's state is what this log says: on open the log is read to its end, and a write
 * is produced (acks=all, idempotent) and then read back, together with anything before it, before
 * the write returns. Only the records read from the log change the registry.
 *
 * <p>Single writer: ids are assigned by the registry from what it has read, so two registries
 * writing to one topic at once could give one id to two schemas (Confluent elects a primary for
 * that; we run one embedded registry per deployment). A record that contradicts an earlier one is
 * skipped with a warning by the registry.
 *
 * <p>Not thread-safe: the registry calls it under its lock.
 */
final class KafkaSchemaLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaSchemaLog.class);

    /** How long opening, a write, or reading back may take before the call fails. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** How often to ask again for the partitions of a topic the metadata does not know yet. */
    private static final Duration METADATA_RETRY = Duration.ofMillis(100);

    private final String topic;
    private final TopicPartition partition;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;

    private KafkaSchemaLog(String topic, Map<String, Object> clientConfig) {
        this.topic = topic;
        this.partition = new TopicPartition(topic, 0);
        Map<String, Object> producerConfig = new HashMap<>(clientConfig);
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
        this.producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
        Map<String, Object> consumerConfig = new HashMap<>(clientConfig);
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerConfig.remove(ConsumerConfig.GROUP_ID_CONFIG); // assigned, not subscribed
        this.consumer = new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * Opens the log on {@code topic}, creating it (compacted, one partition) if it does not exist,
     * and reads it to its end, handing each entry to {@code apply}.
     *
     * @param clientConfig Kafka client settings: bootstrap servers and any security settings
     * @throws SchemaRegistryException if the cluster cannot be reached or the topic is unfit
     */
    static KafkaSchemaLog open(Map<String, Object> clientConfig, String topic, Consumer<SchemaLogRecord> apply) {
        createIfMissing(clientConfig, topic);
        KafkaSchemaLog opened = new KafkaSchemaLog(topic, clientConfig);
        try {
            opened.requireOnePartition();
            opened.consumer.assign(List.of(opened.partition));
            opened.consumer.seekToBeginning(List.of(opened.partition));
            long end = opened.consumer
                    .endOffsets(List.of(opened.partition), TIMEOUT)
                    .get(opened.partition);
            opened.readUpTo(end, apply);
            log.info("schemas topic {} read: {} records", topic, end);
            return opened;
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
    }

    /**
     * Appends {@code entry} and reads the log up to and including it, handing every entry read
     * (this one and any written before it) to {@code apply}.
     *
     * @throws SchemaRegistryException if the write is not acknowledged or cannot be read back in time
     */
    void append(SchemaLogRecord entry, Consumer<SchemaLogRecord> apply) {
        long offset;
        try {
            offset = producer.send(new ProducerRecord<>(topic, 0, entry.key(), entry.value()))
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("interrupted while writing to the schemas topic " + topic, e);
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            throw new SchemaRegistryException("cannot write to the schemas topic " + topic + ": " + e, e);
        }
        readUpTo(offset + 1, apply);
    }

    /** Reads until the consumer's position reaches {@code end}. */
    private void readUpTo(long end, Consumer<SchemaLogRecord> apply) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        try {
            while (consumer.position(partition, TIMEOUT) < end) {
                if (System.nanoTime() > deadline) {
                    throw new SchemaRegistryException(
                            "the schemas topic " + topic + " was not read up to offset " + end + " within " + TIMEOUT,
                            null);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    decode(record).ifPresent(apply);
                }
            }
        } catch (KafkaException e) {
            throw new SchemaRegistryException("cannot read the schemas topic " + topic + ": " + e, e);
        }
    }

    /** The entry of a record; a record that is not one is logged and skipped, never stops the registry. */
    private Optional<SchemaLogRecord> decode(ConsumerRecord<byte[], byte[]> record) {
        try {
            return SchemaLogRecord.decode(record.key(), record.value());
        } catch (IllegalArgumentException e) {
            log.warn(
                    "schemas topic {} offset {}: skipped a record that is not a registry entry: {}",
                    topic,
                    record.offset(),
                    e.getMessage());
            return Optional.empty();
        }
    }

    private void requireOnePartition() {
        List<PartitionInfo> partitions = partitionsOnceKnown();
        if (partitions.size() != 1) {
            throw new SchemaRegistryException(
                    "the schemas topic " + topic + " must have exactly 1 partition (it orders every write), has "
                            + partitions.size(),
                    null);
        }
    }

    /**
     * The topic's partitions as soon as this client's metadata knows them: a topic created a moment
     * ago can be missing from a broker's metadata for a while, and the consumer then answers an
     * empty list rather than waiting.
     */
    private List<PartitionInfo> partitionsOnceKnown() {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            List<PartitionInfo> partitions = consumer.partitionsFor(topic, TIMEOUT);
            if ((partitions != null && !partitions.isEmpty()) || System.nanoTime() > deadline) {
                return partitions == null ? List.of() : partitions;
            }
            try {
                Thread.sleep(METADATA_RETRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SchemaRegistryException("interrupted while looking up the schemas topic " + topic, e);
            }
        }
    }

    private static void createIfMissing(Map<String, Object> clientConfig, String topic) {
        Map<String, String> configs = new HashMap<>(TopicConfigs.compacted());
        configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        NewTopic spec = new NewTopic(topic, Optional.of(1), Optional.empty()).configs(configs);
        try (Admin admin = Admin.create(clientConfig)) {
            admin.createTopics(List.of(spec)).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            log.info("created the schemas topic {} (compacted, 1 partition)", topic);
        } catch (ExecutionException e) {
            // Not allowed to create topics (a locked-down cluster whose administrator created this
            // one): go on; reading it says clearly whether it exists and may be used.
            if (!(e.getCause() instanceof TopicExistsException)
                    && !(e.getCause() instanceof TopicAuthorizationException)
                    && !(e.getCause() instanceof ClusterAuthorizationException)) {
                throw new SchemaRegistryException("cannot create the schemas topic " + topic + ": " + e.getCause(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("interrupted while creating the schemas topic " + topic, e);
        } catch (TimeoutException | KafkaException e) {
            throw new SchemaRegistryException("cannot create the schemas topic " + topic + ": " + e, e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        consumer.close();
    }
}
