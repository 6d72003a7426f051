package io.ata.trainer;

import io.ata.platform.Threads;
import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Duration;

/**
 * Starts a trainer's watch over its open round: a reader of its own on a thread of its own
 * ({@link AssignmentWatch}), or a share of a {@link TrainerHost}'s reader.
 */
@FunctionalInterface
interface RoundWatches {
    /** A reader of the trainer's own, and a producer of its own for OVERDUE events. */
    RoundWatches OWN_READER = (config, registry, clients, assignments, metrics, readFromMs) -> {
        AssignmentWatch watch = new AssignmentWatch(config, registry, clients, assignments, metrics, readFromMs);
        Thread thread = new Thread(watch, "ata-trainer-" + config.job() + "-deadlines");
        thread.setDaemon(true);
        thread.start();
        return () -> {
            watch.stop();
            Threads.awaitEnd(thread, Duration.ofSeconds(10));
        };
    };

    /**
     * Starts watching {@code config}'s job: its assignments into {@code assignments}, read from
     * {@code readFromMs} (epoch ms: a little before the open round opened, so that its assignments
     * are read too; at most {@link TrainingLoop#MAX_WATCH_LOOK_BACK_MS} ago).
     */
    RoundWatch start(
            TrainerConfig config,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            RoundAssignments assignments,
            TrainerMetrics metrics,
            long readFromMs);
}
