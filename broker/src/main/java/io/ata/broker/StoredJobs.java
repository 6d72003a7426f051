package io.ata.broker;

import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.WorkerHeartbeat;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The jobs an instance hosts, as its queries see them: each job's record in the {@code jobs} store
 * put together with its worker records and its learned state's chunks ({@link JobStateParts}), and
 * its workers' liveness taken from the membership now, as the rounds take it (it is not stored).
 */
public final class StoredJobs {
    private final ReadOnlyKeyValueStore<String, JobState> jobs;
    private final ReadOnlyKeyValueStore<String, JobWorkerState> workers;
    private final ReadOnlyKeyValueStore<String, byte[]> learnedChunks;
    private final BrokerSettings settings;
    private final Supplier<? extends Iterable<WorkerHeartbeat>> membership;
    private final LongSupplier membershipClock;

    /**
     * @param membership      every worker's last heartbeat
     * @param membershipClock the time liveness is judged at ({@link BrokerSettings#membershipClock})
     */
    StoredJobs(
            ReadOnlyKeyValueStore<String, JobState> jobs,
            ReadOnlyKeyValueStore<String, JobWorkerState> workers,
            ReadOnlyKeyValueStore<String, byte[]> learnedChunks,
            BrokerSettings settings,
            Supplier<? extends Iterable<WorkerHeartbeat>> membership,
            LongSupplier membershipClock) {
        this.jobs = jobs;
        this.workers = workers;
        this.learnedChunks = learnedChunks;
        this.settings = settings;
        this.membership = membership;
        this.membershipClock = membershipClock;
    }

    /**
     * The job's whole state in one record, as {@link JobRuntime#snapshot()} makes it: every
     * worker's statistics and the learned state whole, and which workers are live now (with the
     * workers the membership has and the job has not met yet: the job meets them at its next
     * event); null if this instance has no such job.
     *
     * @throws IllegalArgumentException if its stored state cannot be read (the broker deletes it at
     *     the job's next event)
     */
    public JobState get(String job) {
        try {
            JobState record = jobs.get(job);
            if (record == null) {
                return null;
            }
            JobRuntime runtime =
                    JobRuntime.restoreOrRelearn(read(record, workers, learnedChunks), settings, refused -> {});
            runtime.syncMembership(membership.get(), membershipClock.getAsLong());
            return runtime.snapshot();
        } catch (SerializationException e) {
            throw new IllegalArgumentException(
                    "job " + job + ": its stored state cannot be read: " + e.getMessage(), e);
        }
    }

    /** Every job's own record, without its workers' statistics (see {@link #workerCount}). */
    public KeyValueIterator<String, JobState> records() {
        return jobs.all();
    }

    /** How many workers a job's record speaks of, kept in it or apart. */
    public static int workerCount(JobState record) {
        return Math.max(record.getWorkersApart(), record.getWorkerIds().size());
    }

    /**
     * A job's parts as stored: its record, its worker records, and as many chunks of its learned
     * state and of its roster as it says it has. A job with a roster has records of the workers it
     * observed, found by a scan of its keys (a read of every worker's key cost a read per worker of
     * the fleet); a job stored before has one for each of its workers, each read by its key.
     *
     * @throws IllegalArgumentException if a worker record is missing where the job has no roster,
     *     or a key of the job's is not a worker's (a missing chunk is left for the restore to refuse)
     */
    static JobStateParts read(
            JobState record,
            ReadOnlyKeyValueStore<String, JobWorkerState> workerStore,
            ReadOnlyKeyValueStore<String, byte[]> chunkStore) {
        String job = record.getJob();
        int n = record.getWorkersApart();
        SortedMap<Integer, JobWorkerState> workers = new TreeMap<>();
        if (record.getRosterChunks() > 0) {
            String prefix = JobStateParts.partKeyPrefix(job);
            try (KeyValueIterator<String, JobWorkerState> it = workerStore.prefixScan(prefix, new StringSerializer())) {
                it.forEachRemaining(kv -> workers.put(workerIndex(job, kv.key), kv.value));
            }
        } else {
            for (int i = 0; i < n; i++) {
                JobWorkerState worker = workerStore.get(JobStateParts.partKey(job, i));
                if (worker == null) {
                    throw new IllegalArgumentException(
                            "job " + job + ": worker record " + i + " of " + n + " is missing");
                }
                workers.put(i, worker);
            }
        }
        int k = record.getLearnedState() == null ? 0 : record.getLearnedState().getChunks();
        SortedMap<Integer, byte[]> learned = chunks(chunkStore, k, c -> JobStateParts.partKey(job, c));
        SortedMap<Integer, byte[]> roster =
                chunks(chunkStore, record.getRosterChunks(), c -> JobStateParts.rosterKey(job, c));
        return new JobStateParts(record, workers, learned, roster);
    }

    /** The worker index a key of {@code job}'s worker records names, as {@link JobStateParts#partKey} writes it. */
    private static int workerIndex(String job, String key) {
        String index = key.substring(JobStateParts.partKeyPrefix(job).length());
        try {
            int i = Integer.parseInt(index);
            if (i >= 0 && JobStateParts.partKey(job, i).equals(key)) {
                return i;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("job " + job + ": a worker record under key " + key);
    }

    /** The chunks 0 to {@code count - 1} found under {@code key}. */
    private static SortedMap<Integer, byte[]> chunks(
            ReadOnlyKeyValueStore<String, byte[]> store, int count, IntFunction<String> key) {
        SortedMap<Integer, byte[]> chunks = new TreeMap<>();
        for (int c = 0; c < count; c++) {
            byte[] chunk = store.get(key.apply(c));
            if (chunk != null) {
                chunks.put(c, chunk);
            }
        }
        return chunks;
    }
}
