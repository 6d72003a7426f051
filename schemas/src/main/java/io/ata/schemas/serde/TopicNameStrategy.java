package io.ata.schemas.serde;

/**
 * Which registry subject holds the schemas of a topic's keys or values: Confluent's default
 * TopicNameStrategy, {@code <topic>-key} and {@code <topic>-value}. Every tool that follows the
 * default (kafka-avro-console-consumer, Kafka UI, ...) finds our schemas there.
 */
public final class TopicNameStrategy {

    private TopicNameStrategy() {}

    /** The subject of {@code topic}'s keys ({@code isKey}) or values. */
    public static String subject(String topic, boolean isKey) {
        return topic + (isKey ? "-key" : "-value");
    }
}
