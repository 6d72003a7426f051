package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.BrokerCounter;
import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;

/**
 * What the end-to-end tests run under both allocations check besides their accounting: the
 * allocation asked for is the one taken, not only allowed.
 */
final class RoundsPlannedAhead {
    private RoundsPlannedAhead() {}

    /** The running broker planned rounds ahead if {@code settings} ask for pipelined allocation, else none. */
    static void assertAsSet(LocalDeployment local, BrokerSettings settings) {
        double planned = local.meters().find(BrokerCounter.ROUNDS_PLANNED_AHEAD.meterName()).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
        if (settings.pipelinedAllocation()) {
            assertTrue(planned > 0, "the broker planned no round ahead");
        } else {
            assertEquals(0, planned, "rounds planned ahead with pipelined allocation off");
        }
    }
}
