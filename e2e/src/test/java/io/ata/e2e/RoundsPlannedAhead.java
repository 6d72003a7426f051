package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.BrokerCounter;
import io.ata.local.LocalDeployment;

/** What the pipelined variants of the end-to-end tests check besides their parents' accounting. */
final class RoundsPlannedAhead {
    private RoundsPlannedAhead() {}

    /** The running broker planned rounds ahead: the pipelined path was taken, not only allowed. */
    static void assertSome(LocalDeployment local) {
        double planned = local.meters().find(BrokerCounter.ROUNDS_PLANNED_AHEAD.meterName()).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
        assertTrue(planned > 0, "the broker planned no round ahead");
    }
}
