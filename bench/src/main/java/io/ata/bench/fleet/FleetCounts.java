package io.ata.bench.fleet;

import java.util.concurrent.atomic.AtomicLong;

/** What a {@link VirtualFleet} did, counted as it runs. */
public final class FleetCounts {

    /** The counts at one moment. */
    public record Snapshot(
            long tasksCompleted,
            long tasksCancelled,
            long staleSkipped,
            long parked,
            long deadLetters,
            long transactions,
            long failedTransactions,
            long restarts,
            long joins,
            long leaves) {}

    final AtomicLong tasksCompleted = new AtomicLong();
    final AtomicLong tasksCancelled = new AtomicLong();
    final AtomicLong staleSkipped = new AtomicLong();
    /** Assignments held until their model version came (pipelined allocation), not waited for. */
    final AtomicLong parked = new AtomicLong();

    final AtomicLong deadLetters = new AtomicLong();
    final AtomicLong transactions = new AtomicLong();
    final AtomicLong failedTransactions = new AtomicLong();
    /** Shared clients started over with a new producer after losing theirs. */
    final AtomicLong restarts = new AtomicLong();

    final AtomicLong joins = new AtomicLong();
    final AtomicLong leaves = new AtomicLong();

    public Snapshot snapshot() {
        return new Snapshot(
                tasksCompleted.get(),
                tasksCancelled.get(),
                staleSkipped.get(),
                parked.get(),
                deadLetters.get(),
                transactions.get(),
                failedTransactions.get(),
                restarts.get(),
                joins.get(),
                leaves.get());
    }
}
