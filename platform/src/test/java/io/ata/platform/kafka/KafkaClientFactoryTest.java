package io.ata.platform.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** Real clients are created without contacting a broker; none is needed here. */
class KafkaClientFactoryTest {
    private static final Map<String, Object> CONSUMER_CONFIG =
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1", ConsumerConfig.GROUP_ID_CONFIG, "g");

    @Test
    void realClientsBringTheirOwnSerializers() {
        // Kafka refuses a configuration without serializers unless the constructor gives them
        Producer<String, byte[]> producer =
                KafkaClientFactory.KAFKA.producer(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1"));
        try {
            assertInstanceOf(KafkaProducer.class, producer);
        } finally {
            producer.close(Duration.ZERO);
        }
        try (Consumer<byte[], byte[]> consumer = KafkaClientFactory.KAFKA.consumer(CONSUMER_CONFIG)) {
            assertInstanceOf(KafkaConsumer.class, consumer);
            assertEquals("g", consumer.groupMetadata().groupId());
        }
    }
}
