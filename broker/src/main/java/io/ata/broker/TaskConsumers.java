package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;

/**
 * Which consumer reads a worker's partitions of the tasks topic, as its heartbeat tells: the
 * group member it names ({@code task_consumer}), or one of its own if it names none. Kafka gives a
 * partition to one member of a group, so the workers of one member (a multi-device agent) may share
 * partitions, and the fleet needs a partition per member, not per worker.
 */
final class TaskConsumers {
    private TaskConsumers() {}

    /** A key equal for two workers exactly when one consumer reads both's partitions. */
    static String of(WorkerHeartbeat h) {
        return h.getTaskConsumer().isEmpty() ? "worker " + h.getWorkerId() : "consumer " + h.getTaskConsumer();
    }
}
