package io.ata.bench.fleet;

import io.ata.workeragent.HeldOffsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The assignments a {@link SharedClient} holds until their model version comes (a version past
 * their job's newest, as pipelined allocation sends them, or more), per task partition, and so how far each
 * partition's offset may be committed: the real agent's rule ({@link HeldOffsets}), for the fleet's
 * work items on the client's lane, its only thread. A record is held from when it is parked until
 * it is done, also while it runs after its release, so a rebalance or a failed transaction
 * delivers it again.
 */
final class ParkedWork {

    /** Per partition, its parked records by offset (released ones are taken out). */
    private final Map<Integer, TreeMap<Long, VirtualAgent.Work>> partitions = new HashMap<>();

    private final HeldOffsets<Integer> held = new HeldOffsets<>();

    /** Holds {@code work} until {@link #release} hands it out; its partition is not committed past it meanwhile. */
    void park(VirtualAgent.Work work) {
        partitions
                .computeIfAbsent(work.source.partition(), k -> new TreeMap<>())
                .put(work.source.offset(), work);
        hold(work);
    }

    /**
     * Holds {@code work}'s offset until it is {@link #done}, without parking it: the work of agents
     * sharing a partition, done out of order.
     */
    void hold(VirtualAgent.Work work) {
        held.hold(work.source.partition(), work.source.offset());
    }

    /** Whether any work waits for its model version. */
    boolean anyParked() {
        return partitions.values().stream().anyMatch(p -> !p.isEmpty());
    }

    /**
     * Takes out the parked work that {@code runnable} accepts (its version came), the oldest of each
     * partition first. It still holds back its partition's offset until it is {@link #done}.
     */
    List<VirtualAgent.Work> release(Predicate<VirtualAgent.Work> runnable) {
        List<VirtualAgent.Work> released = new ArrayList<>();
        for (TreeMap<Long, VirtualAgent.Work> parked : partitions.values()) {
            for (Iterator<VirtualAgent.Work> it = parked.values().iterator(); it.hasNext(); ) {
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
        long commitAt = held.commitOffset(partition, offset);
        TreeMap<Long, VirtualAgent.Work> parked = partitions.get(partition);
        if (parked != null) {
            parked.remove(offset);
        }
        held.done(partition, offset);
        return commitAt;
    }

    /** Forgets the partitions not in {@code owned} (their next owner reads them from the committed offset). */
    void keepOnly(Set<Integer> owned) {
        partitions.keySet().retainAll(owned);
        held.retain(owned);
    }

    /** Forgets everything (a failed transaction: every partition is read again from its committed offset). */
    void clear() {
        partitions.clear();
        held.clear();
    }
}
