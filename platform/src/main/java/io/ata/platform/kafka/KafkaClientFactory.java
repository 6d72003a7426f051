package io.ata.platform.kafka;

import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Creates a part's Kafka clients: producers of String keys and values the part serialized itself
 * (one producer writes several record types), and consumers of raw keys and values (the part
 * decodes them itself, so that a bad record can be dead-lettered instead of failing inside
 * {@code poll()}). The trainer and the agents create every client through this seam, so that
 * their tests can hand in Kafka's {@code MockProducer} and {@code MockConsumer}.
 *
 * <p>The serializers are given here, not in the configuration: any {@code key.serializer} or
 * {@code value.deserializer} in it is overridden.
 */
public interface KafkaClientFactory {

    /** Real Kafka clients. */
    KafkaClientFactory KAFKA = new KafkaClientFactory() {
        @Override
        public Producer<String, byte[]> producer(Map<String, Object> config) {
            return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
        }

        @Override
        public Consumer<byte[], byte[]> consumer(Map<String, Object> config) {
            return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }
    };

    /** A producer of String keys and already serialized values, configured by {@code config}. */
    Producer<String, byte[]> producer(Map<String, Object> config);

    /** A consumer of raw keys and values, configured by {@code config}. */
    Consumer<byte[], byte[]> consumer(Map<String, Object> config);

    /**
     * A consumer as {@link #consumer}, for one short task and closed after it (e.g. reading one
     * partition again): a factory that watches its clients for the part's life leaves it out.
     */
    default Consumer<byte[], byte[]> shortLivedConsumer(Map<String, Object> config) {
        return consumer(config);
    }
}
