package io.ata.workeragent;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * How far each partition's consumer offset may be committed when its records are done out of
 * order: a record held back (parked until its model version comes, or let out and not done yet)
 * must be delivered again after a restart or rebalance, so no commit passes it. The offset to
 * commit is the oldest held record's while one is held, else the highest offset done plus one.
 * Records after a held one that already ran are then delivered again too: skipped if their round
 * closed, or run again as duplicates the trainer drops, as after any rebalance.
 *
 * <p>The rule the Java agent ({@link ParkedAssignments}) and the benchmarks' virtual fleet share.
 * Not thread-safe: its owner guards it.
 *
 * @param <P> how the owner names a partition
 */
public final class HeldOffsets<P> {

    /** One partition's held offsets and the highest offset done. */
    private static final class Progress {
        final TreeSet<Long> held = new TreeSet<>();
        long highestDone = -1;
    }

    private final Map<P, Progress> partitions = new HashMap<>();

    /** The record at {@code offset} of {@code partition} is held: no commit passes it until it is {@link #done}. */
    public void hold(P partition, long offset) {
        partitions.computeIfAbsent(partition, p -> new Progress()).held.add(offset);
    }

    /**
     * The offset to commit when the record at {@code offset} of {@code partition} is done: past
     * every record done (that one included), but not past another record still held.
     */
    public long commitOffset(P partition, long offset) {
        Progress p = partitions.get(partition);
        if (p == null) {
            return offset + 1;
        }
        long past = Math.max(p.highestDone, offset) + 1;
        for (long heldOffset : p.held) {
            if (heldOffset != offset) {
                return Math.min(heldOffset, past); // the oldest other one
            }
        }
        return past;
    }

    /** The record at {@code offset} of {@code partition} is done (committed): no longer held. */
    public void done(P partition, long offset) {
        Progress p = partitions.get(partition);
        if (p == null) {
            return; // nothing held there: records are done in order
        }
        p.held.remove(offset);
        p.highestDone = Math.max(p.highestDone, offset);
        if (p.held.isEmpty()) {
            partitions.remove(partition); // in order again: the next record done commits past itself
        }
    }

    /** Forgets {@code gone} partitions: their next owner reads them from the committed offset. */
    public void forget(Collection<P> gone) {
        partitions.keySet().removeAll(gone);
    }

    /** Forgets every partition but {@code kept}. */
    public void retain(Collection<P> kept) {
        partitions.keySet().retainAll(kept);
    }

    /** Forgets everything: every partition is read again from its committed offset. */
    public void clear() {
        partitions.clear();
    }
}
