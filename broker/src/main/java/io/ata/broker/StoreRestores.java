package io.ata.broker;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What restoring the state stores from their changelogs took: logs each store partition's restore as
 * it ends (records and time), and keeps, per store, the records restored and the span from its
 * first partition's start to its last one's end. After {@code kill -9} under exactly-once, Streams
 * drops the local state and reads every changelog from its start, so this is where a restart's
 * seconds go before the broker serves again.
 *
 * <p>Streams calls it from the threads that restore (the state updater, or the global thread for
 * the membership store), so every method is synchronized.
 */
public final class StoreRestores implements StateRestoreListener {
    private static final Logger LOG = LoggerFactory.getLogger(StoreRestores.class);

    /**
     * One store's restore.
     *
     * @param store the store's name
     * @param partitions its partitions restored so far
     * @param records the records read from its changelog
     * @param firstStartNanos when the first partition's restore started ({@link System#nanoTime})
     * @param lastEndNanos when the last one ended
     */
    public record Restore(String store, int partitions, long records, long firstStartNanos, long lastEndNanos) {
        /** From the first partition's start to the last one's end. */
        public double seconds() {
            return (lastEndNanos - firstStartNanos) / 1e9;
        }

        /** This store's restore and {@code other} partitions' of it, together. */
        Restore plus(Restore other) {
            return new Restore(
                    store,
                    partitions + other.partitions,
                    records + other.records,
                    Math.min(firstStartNanos, other.firstStartNanos),
                    Math.max(lastEndNanos, other.lastEndNanos));
        }
    }

    private final LongSupplier clock;
    private final Map<StorePartition, Long> started = new HashMap<>();
    private final Map<String, Restore> ended = new HashMap<>();

    private record StorePartition(TopicPartition changelog, String store) {}

    public StoreRestores() {
        this(System::nanoTime);
    }

    /** With {@code clock} in nanoseconds, for tests. */
    StoreRestores(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public synchronized void onRestoreStart(
            TopicPartition changelog, String store, long startingOffset, long endingOffset) {
        started.put(new StorePartition(changelog, store), clock.getAsLong());
    }

    @Override
    public void onBatchRestored(TopicPartition changelog, String store, long batchEndOffset, long numRestored) {
        // only the totals at the end are kept
    }

    @Override
    public synchronized void onRestoreEnd(TopicPartition changelog, String store, long totalRestored) {
        Long start = started.remove(new StorePartition(changelog, store));
        long end = clock.getAsLong();
        long from = start == null ? end : start;
        ended.merge(store, new Restore(store, 1, totalRestored, from, end), Restore::plus);
        LOG.info(
                "restored store {} from {}: {} records in {} ms",
                store,
                changelog,
                totalRestored,
                (end - from) / 1_000_000);
    }

    @Override
    public synchronized void onRestoreSuspended(TopicPartition changelog, String store, long totalRestored) {
        // the partition moved to another instance mid-restore: not a restore that ended here
        started.remove(new StorePartition(changelog, store));
    }

    /** The stores whose restores ended, by the start of their first partition's. */
    public synchronized List<Restore> ended() {
        List<Restore> all = new ArrayList<>(ended.values());
        all.sort(Comparator.comparingLong(Restore::firstStartNanos));
        return all;
    }
}
