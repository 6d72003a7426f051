package io.ata.cli;

import io.ata.schemas.Topics;
import picocli.CommandLine.Option;

/**
 * The partitions of the topics a command creates: {@code --task-partitions} and
 * {@code --rounds-partitions}, by default the project's. A picocli mixin of {@code ata broker} and
 * {@code ata kafka}; the latter words their help for its {@code --topics} (KafkaCommand.properties).
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
            description = "Partitions of the rounds topic for --create-topics: how many broker instances can share "
                    + "the jobs; choose it before the first job runs (default: ${DEFAULT-VALUE}).")
    int rounds;
}
