package io.ata.broker;

import io.ata.platform.Threads;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.registry.SchemaRegistryException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the dead letters of the membership topic: each record there that the global membership
 * store skips ({@link MembershipUpdater}) gets one letter with the reason, exactly once.
 *
 * <p>A global store's processor has no output, and every instance rebuilds its store from the
 * whole topic at each start, so it cannot write the letters itself: each record would get one
 * letter per instance and per restart. Instead this consumer, in a group of its own ({@link
 * #groupId}), reads the topic once for the whole deployment (one partition, so one instance at a
 * time), checks each record by the same {@link HeartbeatRules}, and writes the letters and its
 * offsets in one transaction, as the agents do. Valid records pass without a trace.
 */
final class MembershipAudit implements Runnable, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MembershipAudit.class);
    private static final DeadLetters LETTERS = new DeadLetters(DeadLetters.BROKER);
    /** How long to wait before reading a record again when the Schema Registry could not be asked. */
    private static final Duration REGISTRY_RETRY = Duration.ofSeconds(1);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<String, DeadLetter> producer;
    private final MembershipCheck check;
    private final BrokerMetrics metrics;
    private final String topic;
    private final String deadLetterTopic;
    private final Thread thread;
    private volatile boolean closing;
    private boolean started;

    /**
     * @param consumerConfig the consumer's settings (bootstrap servers, security); the group and
     *     offsets are set here
     * @param producerConfig the producer's settings; the transactional id is set here
     * @param applicationId the broker's application id: the audit's group and transactional id
     *     start with it
     */
    MembershipAudit(
            Map<String, Object> consumerConfig,
            Map<String, Object> producerConfig,
            String applicationId,
            String topic,
            String deadLetterTopic,
            MembershipCheck check,
            Serializer<DeadLetter> deadLetters,
            BrokerMetrics metrics) {
        Map<String, Object> consumerProps = new HashMap<>(consumerConfig);
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, groupId(applicationId));
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.CLIENT_ID_CONFIG, groupId(applicationId));
        Map<String, Object> producerProps = new HashMap<>(producerConfig);
        // one transactional id per instance: the group's generation fences a former owner (KIP-447)
        producerProps.put(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                groupId(applicationId) + "-" + UUID.randomUUID().toString().substring(0, 8));
        producerProps.put(ProducerConfig.CLIENT_ID_CONFIG, groupId(applicationId));
        this.consumer = new KafkaConsumer<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.producer = new KafkaProducer<>(producerProps, new StringSerializer(), deadLetters);
        this.check = check;
        this.metrics = metrics;
        this.topic = topic;
        this.deadLetterTopic = deadLetterTopic;
        this.thread = new Thread(this, "membership-audit");
        this.thread.setDaemon(true);
    }

    /** The consumer group that reads the membership topic for its dead letters. */
    static String groupId(String applicationId) {
        return applicationId + "-membership-audit";
    }

    void start() {
        started = true;
        thread.start();
    }

    @Override
    public void run() {
        try {
            producer.initTransactions();
            consumer.subscribe(List.of(topic));
            while (!closing) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                if (!records.isEmpty()) {
                    audit(records);
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            if (!closing) {
                LOG.error("the membership audit stopped: membership records are no longer dead-lettered", e);
            }
        } finally {
            consumer.close(Duration.ofSeconds(5));
            producer.close(Duration.ofSeconds(5));
        }
    }

    /** One transaction: the letters of the bad records among {@code records}, and the offsets past them. */
    private void audit(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        producer.beginTransaction();
        try {
            for (ConsumerRecord<byte[], byte[]> record : records) {
                Refusal refusal = refusal(record);
                if (refusal != null) {
                    metrics.deadLetter(topic, refusal.kind());
                    DeadLetter letter = LETTERS.of(record, refusal.reason(), null, System.currentTimeMillis());
                    producer.send(new ProducerRecord<>(deadLetterTopic, DeadLetters.keyOf(letter), letter));
                }
                next.put(
                        new TopicPartition(record.topic(), record.partition()),
                        new OffsetAndMetadata(record.offset() + 1));
            }
            producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
            producer.commitTransaction();
        } catch (SchemaRegistryException e) {
            // not the records' fault: read them again once the registry answers
            LOG.warn("cannot ask the Schema Registry ({}); reading the membership records again", e.getMessage());
            producer.abortTransaction();
            rewind(records);
            sleep(REGISTRY_RETRY);
        } catch (KafkaException e) {
            if (closing) {
                throw e;
            }
            LOG.warn("membership audit transaction failed ({}); reading the records again", e.toString());
            producer.abortTransaction();
            rewind(records);
        }
    }

    /** Why the global store skips {@code record}; null if it takes it (tombstones included). */
    private Refusal refusal(ConsumerRecord<byte[], byte[]> record) {
        return check.judge(record.key(), record.value(), System.currentTimeMillis())
                        instanceof MembershipCheck.Skip skip
                ? skip.refusal()
                : null;
    }

    /** Seeks back to the first of {@code records} of each partition, so the next poll reads them again. */
    private void rewind(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition partition : records.partitions()) {
            consumer.seek(partition, records.records(partition).get(0).offset());
        }
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops reading and waits for the thread to close its clients. */
    @Override
    public void close() {
        closing = true;
        if (!started) {
            consumer.close(Duration.ZERO);
            producer.close(Duration.ZERO);
            return;
        }
        consumer.wakeup();
        Threads.awaitEnd(thread, Duration.ofSeconds(15));
    }
}
