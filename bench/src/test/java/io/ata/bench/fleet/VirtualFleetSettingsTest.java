package io.ata.bench.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The fleet's shape: how many task partitions its agents need, alone or sharing. */
class VirtualFleetSettingsTest {
    @Test
    void agentsSharingAPartitionNeedOnePerGroupOfEachClient() {
        VirtualFleet.Settings alone = VirtualFleet.Settings.of(1024);
        assertFalse(alone.sharesPartitions());
        assertEquals(1024, alone.taskPartitions());

        VirtualFleet.Settings shared = alone.withAgentsPerPartition(8);
        assertTrue(shared.sharesPartitions());
        assertEquals(128, shared.taskPartitions());
        // 100 agents, 64 per client: 8 groups in each client's share, or the full one's groups go short
        assertEquals(16, shared.withAgents(100).taskPartitions());
    }

    @Test
    void agentsPerPartitionMustDivideTheAgentsPerClient() {
        VirtualFleet.Settings fleet = VirtualFleet.Settings.of(1024);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> fleet.withAgentsPerPartition(3));
        assertTrue(e.getMessage().contains("must divide the agents per client (64)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> fleet.withAgentsPerPartition(0));
        assertEquals(4, fleet.withAgentsPerClient(4).withAgentsPerPartition(4).agentsPerPartition());
    }
}
