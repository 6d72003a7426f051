package io.ata.cli;

import picocli.CommandLine.Mixin;

/**
 * A live-system benchmark that runs on an embedded KRaft broker unless {@code --bootstrap-servers}
 * or {@code --command-config} names a cluster, and writes its reports into {@code --out}
 * (bench-transport, bench-fleet).
 */
abstract class ClusterBenchCommand extends LiveSystemBenchCommand {
    @Mixin
    OutputDirectory out;

    @Mixin
    KafkaOptions kafka;

    /**
     * The named cluster as the report's heading names it, {@code Kafka at SERVERS}, once it has
     * answered: one that does not is a clear error before anything is measured.
     */
    String reachableCluster() {
        kafka.topicNames();
        return "Kafka at " + kafka.bootstrapServers();
    }
}
