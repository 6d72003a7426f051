package io.ata.bench.fleet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The assignments a {@link SharedClient} holds until their model version comes (one version past
 * their job's newest, as pipelined allocation sends them), per task partition, and so how far each
 * partition's offset may be committed: the real agent's rule ({@code ParkedAssignments} of the
 * worker agent), kept here for the fleet's work items on the client's lane, its only thread.
 *
 * <p>The agents go on with the records after a parked one, so records are done out of order. The
 * offset committed for a partition never passes a record that is parked, or that left the parking
 * and is not done yet: it is the oldest such record while there is one, else the highest offset
 * done plus one. A rebalance or a failed transaction thus delivers a parked record again.
 */
final class ParkedWork {

    /** One partition's held records by offset (parked or released, not done) and the highest offset done. */
    private static final class Progress {
        final TreeMap<Long, VirtualAgent.Work> held = new TreeMap<>();
        final TreeMap<Long, VirtualAgent.Work> parked = new TreeMap<>();
        long highestDone = -1;
    }

    private final Map<Integer, Progress> partitions = new HashMap<>();

    /** Holds {@code work} until {@link #release} hands it out; its partition is not committed past it meanwhile. */
    void park(VirtualAgent.Work work) {
        Progress p = partitions.computeIfAbsent(work.source.partition(), k -> new Progress());
        p.held.put(work.source.offset(), work);
        p.parked.put(work.source.offset(), work);
    }

    /** Whether any work waits for its model version. */
    boolean anyParked() {
        return partitions.values().stream().anyMatch(p -> !p.parked.isEmpty());
    }

    /**
     * Takes out the parked work that {@code runnable} accepts (its version came), the oldest of each
     * partition first. It still holds back its partition's offset until it is {@link #done}.
     */
    List<VirtualAgent.Work> release(Predicate<VirtualAgent.Work> runnable) {
        List<VirtualAgent.Work> released = new ArrayList<>();
        for (Progress p : partitions.values()) {
            for (Iterator<VirtualAgent.Work> it = p.parked.values().iterator(); it.hasNext(); ) {
                VirtualAgent.Work w = it.next();
                if (runnable.test(w)) {
                    it.remove();
                    released.add(w);
                }
            }
        }
        return released;
    }

    /**
     * Marks the record at {@code offset} of {@code partition} done and returns the offset to commit
     * with it: past every record done, but not past one still held.
     */
    long done(int partition, long offset) {
        Progress p = partitions.get(partition);
        if (p == null) {
            return offset + 1;
        }
        p.held.remove(offset);
        p.parked.remove(offset);
        p.highestDone = Math.max(p.highestDone, offset);
        long past = p.highestDone + 1;
        if (p.held.isEmpty()) {
            partitions.remove(partition); // in order again: the next record done commits past itself
            return past;
        }
        return Math.min(p.held.firstKey(), past);
    }

    /** Forgets the partitions not in {@code owned} (their next owner reads them from the committed offset). */
    void keepOnly(Set<Integer> owned) {
        partitions.keySet().retainAll(owned);
    }

    /** Forgets everything (a failed transaction: every partition is read again from its committed offset). */
    void clear() {
        partitions.clear();
    }
}
