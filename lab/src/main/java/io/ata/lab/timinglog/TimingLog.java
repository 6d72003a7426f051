package io.ata.lab.timinglog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A timing log seen per worker: for each worker, the durations of its tasks in time order. This is
 * what a replay needs (worker {@code i}'s {@code k}-th task takes its {@code k}-th recorded
 * duration), and it is much smaller than the records themselves, so logs with millions of lines
 * are kept as one {@code double[]} per worker.
 *
 * <ul>
 *   <li>Workers are indexed {@code 0..n-1} in the order they first appear in the input.</li>
 *   <li>If every record carries a timestamp, each worker's durations are sorted by timestamp
 *       (stably: equal timestamps keep input order); otherwise input order is kept, because a
 *       partial ordering would mix two clocks.</li>
 *   <li>CANCELLED records are counted but not used: their duration is partial time, not a task
 *       duration. A worker whose records were all cancelled still gets an index, with no
 *       durations.</li>
 * </ul>
 * Instances are immutable.
 */
public final class TimingLog {
    private final String[] workerIds;
    private final double[][] durations;
    private final long recordCount;
    private final long cancelledCount;

    private TimingLog(String[] workerIds, double[][] durations, long recordCount, long cancelledCount) {
        this.workerIds = workerIds;
        this.durations = durations;
        this.recordCount = recordCount;
        this.cancelledCount = cancelledCount;
    }

    /**
     * The per-worker view of {@code records}.
     *
     * @throws IllegalArgumentException if no record has a usable (non-cancelled) duration
     */
    public static TimingLog of(List<TimingRecord> records) {
        Builder b = builder();
        records.forEach(b::add);
        return b.build();
    }

    /** A builder that takes records one at a time, so a reader can stream a large file into it. */
    public static Builder builder() {
        return new Builder();
    }

    public int workerCount() {
        return workerIds.length;
    }

    /** The id the log gives worker {@code worker}. */
    public String workerId(int worker) {
        return workerIds[Objects.checkIndex(worker, workerIds.length)];
    }

    /** All worker ids, by index. */
    public List<String> workerIds() {
        return List.of(workerIds);
    }

    /** The index of the worker with id {@code id}, or -1 if the log has no such worker. */
    public int indexOf(String id) {
        for (int i = 0; i < workerIds.length; i++) {
            if (workerIds[i].equals(id)) {
                return i;
            }
        }
        return -1;
    }

    /** A copy of worker {@code worker}'s task durations, in time order. */
    public double[] durations(int worker) {
        return durations[Objects.checkIndex(worker, durations.length)].clone();
    }

    public int durationCount(int worker) {
        return durations[Objects.checkIndex(worker, durations.length)].length;
    }

    /** Worker {@code worker}'s {@code k}-th duration (0-based), without copying. */
    public double duration(int worker, int k) {
        double[] d = durations[Objects.checkIndex(worker, durations.length)];
        return d[Objects.checkIndex(k, d.length)];
    }

    /** Each worker's mean duration; NaN for a worker with no usable duration. */
    public double[] means() {
        double[] m = new double[durations.length];
        for (int i = 0; i < m.length; i++) {
            m[i] = durations[i].length == 0
                    ? Double.NaN
                    : Arrays.stream(durations[i]).average().orElseThrow();
        }
        return m;
    }

    /** How many records the log had, cancelled ones included. */
    public long recordCount() {
        return recordCount;
    }

    /** How many records were CANCELLED and therefore left out of the durations. */
    public long cancelledCount() {
        return cancelledCount;
    }

    /** Every usable duration, worker after worker (for pooled statistics). */
    public double[] allDurations() {
        int total = 0;
        for (double[] d : durations) {
            total += d.length;
        }
        double[] all = new double[total];
        int at = 0;
        for (double[] d : durations) {
            System.arraycopy(d, 0, all, at, d.length);
            at += d.length;
        }
        return all;
    }

    @Override
    public String toString() {
        return "TimingLog[" + workerIds.length + " workers, " + recordCount + " records, " + cancelledCount
                + " cancelled]";
    }

    /** Accumulates records into growable per-worker arrays. Not thread-safe; use once. */
    public static final class Builder {
        private final Map<String, Integer> index = new HashMap<>();
        private final List<String> ids = new ArrayList<>();
        private final List<Column> columns = new ArrayList<>();
        private boolean allTimestamped = true;
        private long records;
        private long cancelled;

        private Builder() {}

        public Builder add(TimingRecord r) {
            Integer w = index.get(r.worker());
            if (w == null) {
                w = ids.size();
                index.put(r.worker(), w);
                ids.add(r.worker());
                columns.add(new Column());
            }
            records++;
            if (r.timestamp() == null) {
                allTimestamped = false;
            }
            if (r.isTaskDuration()) {
                columns.get(w).add(r.duration(), r.timestamp() == null ? 0 : r.timestamp());
            } else {
                cancelled++;
            }
            return this;
        }

        /**
         * @throws IllegalArgumentException if no record added so far has a usable duration
         */
        public TimingLog build() {
            double[][] d = new double[columns.size()][];
            long usable = 0;
            for (int i = 0; i < d.length; i++) {
                d[i] = columns.get(i).durations(allTimestamped);
                usable += d[i].length;
            }
            if (usable == 0) {
                throw new IllegalArgumentException("timing log has no usable duration (" + records + " records, "
                        + cancelled + " of them cancelled)");
            }
            return new TimingLog(ids.toArray(String[]::new), d, records, cancelled);
        }
    }

    /** One worker's durations and timestamps as parallel growable arrays. */
    private static final class Column {
        private double[] durations = new double[16];
        private long[] timestamps = new long[16];
        private int size;

        void add(double duration, long timestamp) {
            if (size == durations.length) {
                durations = Arrays.copyOf(durations, 2 * size);
                timestamps = Arrays.copyOf(timestamps, 2 * size);
            }
            durations[size] = duration;
            timestamps[size] = timestamp;
            size++;
        }

        double[] durations(boolean sortByTimestamp) {
            double[] d = Arrays.copyOf(durations, size);
            if (!sortByTimestamp || isSorted()) {
                return d; // the usual case: logs are written in time order
            }
            Integer[] order = new Integer[size];
            for (int k = 0; k < size; k++) {
                order[k] = k;
            }
            Arrays.sort(order, (a, b) -> Long.compare(timestamps[a], timestamps[b])); // stable (TimSort)
            for (int k = 0; k < size; k++) {
                d[k] = durations[order[k]];
            }
            return d;
        }

        private boolean isSorted() {
            for (int k = 1; k < size; k++) {
                if (timestamps[k] < timestamps[k - 1]) {
                    return false;
                }
            }
            return true;
        }
    }
}
