package io.ata.broker;

import io.ata.schemas.TopicDef;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;

/** What the topology tests' {@link TopologyTestDriver}s share: the settings and the raw and typed topics. */
final class TestDrivers {
    private TestDrivers() {}

    /** A driver for {@code topology} under exactly-once v2, as the broker runs, its clock at {@code start}. */
    static TopologyTestDriver exactlyOnce(Topology topology, String applicationId, Instant start) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        return new TopologyTestDriver(topology, props, start);
    }

    /** {@code topic}'s records as the parts write them, all stamped at {@code time}. */
    static <V extends SpecificRecord> TestInputTopic<String, V> input(
            TopologyTestDriver driver, TopicDef<V> topic, SchemaRegistryClient registry, Instant time) {
        return driver.createInputTopic(
                topic.name(),
                Serdes.String().serializer(),
                topic.valueSerde(registry).serializer(),
                time,
                Duration.ZERO);
    }

    /** Any bytes on {@code topic}: for records the broker must refuse. */
    static TestInputTopic<byte[], byte[]> rawInput(TopologyTestDriver driver, TopicDef<?> topic) {
        return driver.createInputTopic(
                topic.name(),
                Serdes.ByteArray().serializer(),
                Serdes.ByteArray().serializer());
    }

    /** {@code topic}'s records as the parts read them: String keys, Avro values. */
    static <V extends SpecificRecord> TestOutputTopic<String, V> output(
            TopologyTestDriver driver, TopicDef<V> topic, SchemaRegistryClient registry) {
        return driver.createOutputTopic(
                topic.name(),
                Serdes.String().deserializer(),
                topic.valueSerde(registry).deserializer());
    }
}
