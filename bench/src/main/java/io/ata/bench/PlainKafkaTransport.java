package io.ata.bench;

import io.ata.schemas.chunk.Chunks;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Kafka's own clients moving the same bytes as the result path, as {@code byte[]} values cut at
 * the same size as its slices (a whole gradient would exceed the default 1 MiB record limit), in
 * one of two modes:
 *
 * <ul>
 *   <li>{@link #plain}, the baseline: producer and consumer with their default settings (no
 *       transactions, {@code read_uncommitted}); the producer batches and pipelines as it likes.
 *   <li>{@link #exactlyOnce}, the floor of any exactly-once path: one transaction per task with the
 *       agent's producer settings, read {@code read_committed}; a task is sent when its commit
 *       returns. The result path can be no faster than this; the gap between the two is ours.
 * </ul>
 *
 * A task has arrived when the reader has counted its bytes.
 */
final class PlainKafkaTransport extends GradientTransport {
    static final String PLAIN = "plain";
    static final String EXACTLY_ONCE = "kafka-eos";
    private static final String KEY = "bench";

    private final String topic;
    private final boolean transactional;
    private final KafkaProducer<String, byte[]> producer;
    private long bytesPerTask;
    private long received;

    private PlainKafkaTransport(String topic, Map<String, Object> clientProperties, boolean transactional) {
        super(
                transactional ? EXACTLY_ONCE : PLAIN,
                topic,
                clientProperties,
                transactional ? Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed") : Map.of());
        this.topic = topic;
        this.transactional = transactional;
        this.producer = producer(clientProperties, transactional, "ata-bench-kafka-eos-");
    }

    /** Default clients, no transactions: the baseline. */
    static PlainKafkaTransport plain(String topic, Map<String, Object> clientProperties) {
        return new PlainKafkaTransport(topic, clientProperties, false);
    }

    /** A transaction per task, read_committed: what exactly-once costs in Kafka itself. */
    static PlainKafkaTransport exactlyOnce(String topic, Map<String, Object> clientProperties) {
        return new PlainKafkaTransport(topic, clientProperties, true);
    }

    @Override
    void reset(long bytesPerTask) {
        this.bytesPerTask = bytesPerTask;
        received = 0;
    }

    @Override
    void publish(int task, byte[] gradient) {
        if (transactional) {
            producer.beginTransaction();
        }
        int records = Chunks.count(gradient.length, Chunks.DEFAULT_CHUNK_BYTES);
        for (int i = 0; i < records; i++) {
            int from = i * Chunks.DEFAULT_CHUNK_BYTES;
            int to = Math.min(gradient.length, from + Chunks.DEFAULT_CHUNK_BYTES);
            producer.send(new ProducerRecord<>(topic, 0, KEY, Arrays.copyOfRange(gradient, from, to)));
        }
        if (transactional) {
            producer.commitTransaction();
        }
    }

    @Override
    void flush() {
        producer.flush(); // a transaction per task is committed already
    }

    @Override
    int read(ConsumerRecord<String, byte[]> record) {
        long before = received;
        received += record.value().length;
        // the task whose last byte this record carries, if it carries one
        long completed = received / bytesPerTask;
        return completed > before / bytesPerTask ? (int) completed - 1 : -1;
    }

    @Override
    public void close() {
        producer.close();
        super.close();
    }
}
