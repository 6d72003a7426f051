package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
