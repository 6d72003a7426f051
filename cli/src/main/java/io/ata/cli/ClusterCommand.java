package io.ata.cli;

import picocli.CommandLine.Mixin;

/**
 * A command that cannot run without a Kafka cluster (broker, trainer, worker, export-timings): it
 * mixes in {@link KafkaOptions#clusterRequired()}, so its usage help shows the servers as required.
 * The options come first in the help, before the command's own (picocli reads a superclass's fields
 * first).
 */
abstract class ClusterCommand extends GuardedCommand {
    @Mixin
    KafkaOptions kafka = KafkaOptions.clusterRequired();
}
