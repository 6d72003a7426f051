package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import java.util.Collection;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's periodic look at the fleet against the tasks topic's partitions (every few seconds,
 * see {@link BrokerApp}): reads the membership store once and hands its heartbeats to each check
 * ({@link TaskPartitionGrowth}, {@link TaskPartitionClaims}). While the store cannot be read (it is
 * restoring) nothing is checked; a check that fails is skipped this time, the others still run.
 */
final class TaskPartitionChecks implements Runnable {
    /** One check of the fleet's heartbeats. */
    interface FleetCheck {
        /**
         * @param heartbeats every heartbeat of the membership store, live or not
         * @param nowMs the time liveness is judged at, epoch milliseconds (the wall clock, less a
         *     lagging membership path's delay: {@link BrokerSettings#membershipClock})
         */
        void check(Collection<WorkerHeartbeat> heartbeats, long nowMs) throws InterruptedException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(TaskPartitionChecks.class);

    private final Supplier<Collection<WorkerHeartbeat>> members;
    private final LongSupplier clock;
    private final List<FleetCheck> checks;

    /**
     * @param members the membership store's heartbeats; may throw while the store is not ready
     * @param clock the time liveness is judged at, epoch milliseconds
     */
    TaskPartitionChecks(Supplier<Collection<WorkerHeartbeat>> members, LongSupplier clock, List<FleetCheck> checks) {
        this.members = members;
        this.clock = clock;
        this.checks = List.copyOf(checks);
    }

    @Override
    public void run() {
        Collection<WorkerHeartbeat> heartbeats;
        try {
            heartbeats = members.get();
        } catch (RuntimeException e) {
            LOG.debug("task partitions not checked: {}", e.toString()); // e.g. the store is restoring
            return;
        }
        long now = clock.getAsLong();
        for (FleetCheck check : checks) {
            try {
                check.check(heartbeats, now);
            } catch (RuntimeException e) {
                LOG.debug("task partition check skipped: {}", e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
