package io.ata.cli;

import io.ata.local.kafka.TopicConfigOverrides;
import io.ata.schemas.Topics;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * How a command creates the topics: {@code --task-partitions} and {@code --rounds-partitions}, by
 * default the project's, and {@code --topic-config}, topic configs replacing the project's
 * defaults (retention, segments). A picocli mixin of {@code ata broker} and {@code ata kafka}; the
 * latter words their help for its {@code --topics} (KafkaCommand.properties).
 */
final class TopicPartitionsOptions {
    @Option(
            names = "--task-partitions",
            paramLabel = "N",
            defaultValue = "" + Topics.DEFAULT_TASK_PARTITIONS,
            description = "Partitions of the tasks topic for --create-topics: at least the number of workers "
                    + "(default: ${DEFAULT-VALUE}).")
    int tasks;

    @Option(
            names = "--rounds-partitions",
            paramLabel = "N",
            defaultValue = "" + Topics.DEFAULT_ROUNDS_PARTITIONS,
            description =
                    "Partitions of the rounds, model and allocations topics for --create-topics: how many broker instances"
                            + " can share the jobs, and how many partitions the jobs' model versions spread over (jobs on one"
                            + " partition wait on each other's commits); choose it before the first job runs (default:"
                            + " ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--topic-config",
            paramLabel = "[TOPIC:]KEY=VALUE",
            description = "A topic config for --create-topics, replacing ATA's default for TOPIC (its name without "
                    + "the prefix), or for every topic without TOPIC, e.g. timings:retention.ms=-1 or "
                    + "gradients:retention.bytes=1073741824; repeatable. Defaults: docs/operations.md. Topics that "
                    + "exist are left as they are.")
    List<String> topicConfigs = new ArrayList<>();

    /**
     * The {@code --topic-config} entries, parsed.
     *
     * @throws IllegalArgumentException if one is malformed
     */
    TopicConfigOverrides overrides() {
        return TopicConfigOverrides.parse(topicConfigs);
    }
}
