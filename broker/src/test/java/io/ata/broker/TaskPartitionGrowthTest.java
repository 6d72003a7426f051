package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.Records;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When, and to how many partitions, the broker grows the tasks topic. */
class TaskPartitionGrowthTest {
    @Test
    void aFleetThatOutgrowsItsPartitionsDoublesThemOrMatchesTheFleet() {
        assertEquals(8, TaskPartitionGrowth.target(5, 1, 4), "twice the partitions");
        assertEquals(20, TaskPartitionGrowth.target(20, 16, 4), "or the live agents, if more");
        assertEquals(TaskPartitionGrowth.MAX_PARTITIONS, TaskPartitionGrowth.target(5000, 10, 1000), "at most the cap");
    }

    @Test
    void nothingGrowsWithoutAnIdleAgentInAFleetLargerThanThePartitions() {
        assertEquals(4, TaskPartitionGrowth.target(4, 0, 4), "no idle agent");
        assertEquals(4, TaskPartitionGrowth.target(4, 1, 4), "idle for a moment (a rebalance), not outgrown");
        assertEquals(0, TaskPartitionGrowth.target(9, 3, 0), "the count is unknown");
        assertEquals(
                TaskPartitionGrowth.MAX_PARTITIONS,
                TaskPartitionGrowth.target(2000, 900, TaskPartitionGrowth.MAX_PARTITIONS),
                "at the cap: left as it is");
    }

    @Test
    void agentsAreCountedByTheConsumerThatReadsTheirPartitions() {
        long now = 1_000_000;
        BrokerSettings settings = BrokerSettings.defaults();
        List<WorkerHeartbeat> fleet = new ArrayList<>();
        // two 8-device agents, each one consumer owning one partition its workers share
        for (int w = 0; w < 16; w++) {
            fleet.add(Records.heartbeat("gpu-" + w, now, List.of(w / 8))
                    .setTaskConsumer("node-" + (w / 8))
                    .build());
        }
        assertEquals(new TaskPartitionGrowth.Readers(2, 0, 0), TaskPartitionGrowth.readers(fleet, settings, now));
        assertEquals(2, TaskPartitionGrowth.target(2, 0, 2), "16 workers on 2 partitions: nothing to grow");

        // a third such agent before its consumer got a partition, and a worker of its own without one
        for (int w = 16; w < 24; w++) {
            fleet.add(Records.heartbeat("gpu-" + w, now, List.of())
                    .setTaskConsumer("node-2")
                    .build());
        }
        fleet.add(Records.heartbeat("cpu-0", now, List.of()).build());
        TaskPartitionGrowth.Readers readers = TaskPartitionGrowth.readers(fleet, settings, now);
        assertEquals(new TaskPartitionGrowth.Readers(4, 2, 9), readers);
        assertEquals(4, TaskPartitionGrowth.target(readers.consumers(), readers.idleConsumers(), 2));

        // a worker of a consumer that owns partitions, between two heartbeats: its consumer is not idle
        fleet.set(
                0,
                Records.heartbeat("gpu-0", now, List.of())
                        .setTaskConsumer("node-0")
                        .build());
        assertEquals(2, TaskPartitionGrowth.readers(fleet, settings, now).idleConsumers());
    }
}
