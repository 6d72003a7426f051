package io.ata.local.kafka;

import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Topic configs a user gives for the project's topics, replacing {@link Topics}' defaults when the
 * topics are created: entries {@code [TOPIC:]KEY=VALUE}, as {@code --topic-config} takes them.
 * TOPIC is a topic's name without the prefix ({@code gradients}, {@code timings}, ...); without
 * it the config applies to every topic. KEY and VALUE are Kafka's, as {@code kafka-topics.sh
 * --config} takes them, e.g. {@code timings:retention.ms=-1}; the cluster judges them when it
 * creates the topics. {@code cleanup.policy} is refused: which topics are compacted is part of
 * their contract. Later entries win. Topics that exist already are not changed.
 */
public final class TopicConfigOverrides {
    /** No overrides: the defaults. */
    public static final TopicConfigOverrides NONE = new TopicConfigOverrides(Map.of());

    /** Overrides by base topic name; the key "" holds those for every topic. */
    private final Map<String, Map<String, String>> byTopic;

    private TopicConfigOverrides(Map<String, Map<String, String>> byTopic) {
        this.byTopic = byTopic;
    }

    /**
     * The overrides in {@code entries}, each {@code [TOPIC:]KEY=VALUE}.
     *
     * @throws IllegalArgumentException if an entry is malformed or sets {@code cleanup.policy}
     */
    public static TopicConfigOverrides parse(Collection<String> entries) {
        Map<String, Map<String, String>> byTopic = new LinkedHashMap<>();
        for (String entry : entries) {
            Objects.requireNonNull(entry, "entry");
            int equals = entry.indexOf('=');
            String target = equals < 0 ? entry : entry.substring(0, equals);
            int colon = target.indexOf(':');
            String topic = colon < 0 ? "" : target.substring(0, colon).strip();
            String key = target.substring(colon + 1).strip();
            String value = equals < 0 ? "" : entry.substring(equals + 1).strip();
            if (equals < 0 || key.isEmpty() || value.isEmpty() || (colon >= 0 && topic.isEmpty())) {
                throw new IllegalArgumentException(
                        "topic config '" + entry + "': expected [TOPIC:]KEY=VALUE, e.g. " + "timings:retention.ms=-1");
            }
            if (key.equals(TopicConfig.CLEANUP_POLICY_CONFIG)) {
                throw new IllegalArgumentException("topic config '" + entry + "': " + TopicConfig.CLEANUP_POLICY_CONFIG
                        + " cannot be changed; which topics are compacted is part of their contract");
            }
            byTopic.computeIfAbsent(topic, t -> new LinkedHashMap<>()).put(key, value);
        }
        return byTopic.isEmpty() ? NONE : new TopicConfigOverrides(byTopic);
    }

    /** Whether there are none. */
    public boolean isEmpty() {
        return byTopic.isEmpty();
    }

    /**
     * The project's topics as {@code topics} declares them, in the order of {@link Topics#all()},
     * with these overrides applied: those for every topic first, then the topic's own.
     *
     * @throws IllegalArgumentException if an override names a topic the project does not have
     */
    public List<TopicSpec> specs(Topics topics) {
        Map<String, TopicDef<?>> byBaseName = new LinkedHashMap<>();
        for (TopicDef<?> topic : topics.all()) {
            byBaseName.put(topic.name().substring(topics.prefix().length()), topic);
        }
        for (String topic : byTopic.keySet()) {
            if (!topic.isEmpty() && !byBaseName.containsKey(topic)) {
                throw new IllegalArgumentException("topic config for '" + topic + "': no such topic; the topics are "
                        + String.join(", ", byBaseName.keySet()) + " (without the prefix)");
            }
        }
        List<TopicSpec> specs = new ArrayList<>();
        byBaseName.forEach((base, topic) -> specs.add(TopicSpec.of(topic)
                .withConfigs(byTopic.getOrDefault("", Map.of()))
                .withConfigs(byTopic.getOrDefault(base, Map.of()))));
        return specs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicConfigOverrides other && byTopic.equals(other.byTopic);
    }

    @Override
    public int hashCode() {
        return byTopic.hashCode();
    }

    @Override
    public String toString() {
        return byTopic.entrySet().stream()
                .flatMap(t -> t.getValue().entrySet().stream()
                        .map(c -> (t.getKey().isEmpty() ? "" : t.getKey() + ":") + c.getKey() + "=" + c.getValue()))
                .collect(Collectors.joining(", ", "TopicConfigOverrides[", "]"));
    }
}
