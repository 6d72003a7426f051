package io.ata.bench;

import io.ata.schemas.chunk.Chunks;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The baseline: a plain Kafka producer and consumer with their default settings (no transactions,
 * {@code read_uncommitted}) moving the same bytes, as {@code byte[]} values cut at the same size
 * as the result path's slices (a whole gradient would exceed the default 1 MiB record limit). A
 * task is sent when {@code flush()} returns, and has arrived when the reader has counted its bytes.
 */
final class PlainKafkaTransport extends GradientTransport {
    static final String NAME = "plain";
    private static final String KEY = "bench";

    private final String topic;
    private final KafkaProducer<String, byte[]> producer;
    private long bytesPerTask;
    private long received;

    PlainKafkaTransport(String topic, Map<String, Object> clientProperties) {
        super(NAME, topic, clientProperties, Map.of());
        this.topic = topic;
        Properties p = new Properties();
        p.putAll(clientProperties);
        this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    void reset(long bytesPerTask) {
        this.bytesPerTask = bytesPerTask;
        received = 0;
    }

    @Override
    void publish(int task, byte[] gradient) {
        int records = Chunks.count(gradient.length, Chunks.DEFAULT_CHUNK_BYTES);
        for (int i = 0; i < records; i++) {
            int from = i * Chunks.DEFAULT_CHUNK_BYTES;
            int to = Math.min(gradient.length, from + Chunks.DEFAULT_CHUNK_BYTES);
            producer.send(new ProducerRecord<>(topic, 0, KEY, Arrays.copyOfRange(gradient, from, to)));
        }
        producer.flush();
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
