package io.ata.local.kafka;

import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * A topic to create: its name, number of partitions, whether it is compacted (keeps the latest
 * record per key, {@code cleanup.policy=compact}) and any further topic configs (the project's
 * topics: their retention and segments, see {@link io.ata.schemas.TopicConfigs}). The replication
 * factor is left to the cluster's {@code default.replication.factor} (1 on {@link EmbeddedKafka}).
 *
 * @param name       the topic name: letters, digits, '.', '_' and '-', at most 249 characters
 * @param partitions the number of partitions, at least 1
 * @param compacted  {@code true} for {@code cleanup.policy=compact}, {@code false} for the
 *                   cluster's default policy (delete after the retention time)
 * @param configs    further topic configs, e.g. {@code retention.ms}; copied, never null
 */
public record TopicSpec(String name, int partitions, boolean compacted, Map<String, String> configs) {

    /** Kafka's rule for topic names. */
    private static final Pattern LEGAL_NAME = Pattern.compile("[a-zA-Z0-9._-]+");

    private static final int MAX_NAME_LENGTH = 249;

    public TopicSpec {
        checkName(name);
        if (partitions < 1) {
            throw new IllegalArgumentException("topic " + name + ": partitions must be at least 1, not " + partitions);
        }
        configs = Map.copyOf(Objects.requireNonNull(configs, "configs"));
        if (configs.containsKey(TopicConfig.CLEANUP_POLICY_CONFIG)) {
            throw new IllegalArgumentException("topic " + name + ": give compaction with the compacted flag, not as "
                    + TopicConfig.CLEANUP_POLICY_CONFIG + " in configs");
        }
    }

    public TopicSpec(String name, int partitions, boolean compacted) {
        this(name, partitions, compacted, Map.of());
    }

    /** A topic whose records are deleted after the retention time (the usual kind). */
    public static TopicSpec of(String name, int partitions) {
        return new TopicSpec(name, partitions, false);
    }

    /** A compacted topic: Kafka keeps at least the latest record of each key. */
    public static TopicSpec compacted(String name, int partitions) {
        return new TopicSpec(name, partitions, true);
    }

    /**
     * One of the project's topics, with the partitions, compaction and topic configs (retention,
     * segments) {@link Topics} declares.
     */
    public static TopicSpec of(TopicDef<?> topic) {
        return new TopicSpec(topic.name(), topic.partitions(), topic.compacted(), topic.configs());
    }

    /** Every one of the project's topics, in the order of {@link Topics#all()}. */
    public static List<TopicSpec> all(Topics topics) {
        return topics.all().stream().map(TopicSpec::of).toList();
    }

    /** This topic with one more topic config, e.g. {@code withConfig("retention.ms", "3600000")}. */
    public TopicSpec withConfig(String key, String value) {
        Map<String, String> more = new LinkedHashMap<>(configs);
        more.put(key, value);
        return new TopicSpec(name, partitions, compacted, more);
    }

    /** This topic with more topic configs, each replacing one of the same key. */
    public TopicSpec withConfigs(Map<String, String> more) {
        Map<String, String> all = new LinkedHashMap<>(configs);
        all.putAll(more);
        return new TopicSpec(name, partitions, compacted, all);
    }

    /**
     * How long Kafka keeps the topic's records, for people: {@code compacted}, or e.g.
     * {@code kept 1d or 32 MiB a partition}, from {@code retention.ms} and {@code retention.bytes}
     * (the cluster's defaults where not given).
     */
    public String retention() {
        if (compacted) {
            return "compacted";
        }
        String time = configs.get(TopicConfig.RETENTION_MS_CONFIG);
        String bytes = configs.get(TopicConfig.RETENTION_BYTES_CONFIG);
        if (time == null && bytes == null) {
            return "kept as the cluster's defaults say";
        }
        String kept = time == null ? "the cluster's retention time" : duration(time);
        if (bytes != null && Long.parseLong(bytes) >= 0) {
            kept += " or " + size(Long.parseLong(bytes)) + " a partition";
        }
        return "kept " + kept;
    }

    private static String duration(String millis) {
        long ms = Long.parseLong(millis);
        if (ms < 0) {
            return "forever";
        }
        long hour = 3_600_000L;
        if (ms % (24 * hour) == 0) {
            return ms / (24 * hour) + "d";
        }
        if (ms % hour == 0) {
            return ms / hour + "h";
        }
        return ms + " ms";
    }

    private static String size(long bytes) {
        long mib = 1024L * 1024L;
        if (bytes % (1024 * mib) == 0) {
            return bytes / (1024 * mib) + " GiB";
        }
        return bytes % mib == 0 ? bytes / mib + " MiB" : bytes + " bytes";
    }

    /** The configs the topic is created with: {@link #configs()} plus the cleanup policy if compacted. */
    public Map<String, String> topicConfigs() {
        Map<String, String> all = new LinkedHashMap<>(configs);
        if (compacted) {
            all.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        }
        return all;
    }

    /** The Admin client's request for this topic, with the cluster's default replication factor. */
    public NewTopic toNewTopic() {
        return new NewTopic(name, Optional.of(partitions), Optional.empty()).configs(topicConfigs());
    }

    /** Throws {@link IllegalArgumentException} unless {@code name} is a legal Kafka topic name. */
    static void checkName(String name) {
        Objects.requireNonNull(name, "topic name");
        if (name.isEmpty()
                || name.equals(".")
                || name.equals("..")
                || name.length() > MAX_NAME_LENGTH
                || !LEGAL_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("illegal topic name '" + name + "': use 1 to " + MAX_NAME_LENGTH
                    + " letters, digits, '.', '_' or '-' (and not '.' or '..')");
        }
    }
}
