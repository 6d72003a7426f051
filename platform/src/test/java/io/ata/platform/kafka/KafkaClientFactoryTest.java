package io.ata.platform.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
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

    @Test
    void aMeteredFactoryMetersItsConsumersButNotAShortLivedOne() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MeteredKafkaClients clients = new MeteredKafkaClients(registry)) {
            try (Consumer<byte[], byte[]> c = clients.consumer(config("watched"))) {
                assertFalse(metersOf(registry, "watched").isEmpty(), "a part's consumer is metered");
            }
            try (Consumer<byte[], byte[]> c = clients.shortLivedConsumer(config("one-read"))) {
                assertInstanceOf(KafkaConsumer.class, c);
                assertTrue(metersOf(registry, "one-read").isEmpty(), "no meters, no thread kept for it");
            }
        }
    }

    private static Map<String, Object> config(String clientId) {
        return Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1", ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    }

    private static List<Meter> metersOf(SimpleMeterRegistry registry, String clientId) {
        return registry.getMeters().stream()
                .filter(m -> clientId.equals(m.getId().getTag("client.id")))
                .toList();
    }
}
