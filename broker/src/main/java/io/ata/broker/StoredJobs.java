package io.ata.broker;

import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The jobs an instance hosts, as its queries see them: each job's record in the {@code jobs} store
 * put together with its worker records in the {@code job-workers} store ({@link JobStateParts}).
 */
public final class StoredJobs {
    private final ReadOnlyKeyValueStore<String, JobState> jobs;
    private final ReadOnlyKeyValueStore<String, JobWorkerState> workers;
    private final BrokerSettings settings;

    StoredJobs(
            ReadOnlyKeyValueStore<String, JobState> jobs,
            ReadOnlyKeyValueStore<String, JobWorkerState> workers,
            BrokerSettings settings) {
        this.jobs = jobs;
        this.workers = workers;
        this.settings = settings;
    }

    /**
     * The job's whole state in one record, as {@link JobRuntime#snapshot()} makes it: every
     * worker's statistics and the learned state whole; null if this instance has no such job.
     *
     * @throws IllegalArgumentException if its stored state cannot be read (the broker deletes it at
     *     the job's next event)
     */
    public JobState get(String job) {
        try {
            JobState record = jobs.get(job);
            if (record == null || record.getWorkersApart() == 0) {
                return record; // a record of a broker before the parts holds every worker itself
            }
            return JobRuntime.restoreOrRelearn(record, workersOf(record, workers), settings, refused -> {})
                    .snapshot();
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
     * The worker records of a job's record, in index order: as many as it says are apart.
     *
     * @throws IllegalArgumentException if one is missing
     */
    static List<JobWorkerState> workersOf(JobState record, ReadOnlyKeyValueStore<String, JobWorkerState> store) {
        int n = record.getWorkersApart();
        List<JobWorkerState> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            JobWorkerState worker = store.get(JobStateParts.workerKey(record.getJob(), i));
            if (worker == null) {
                throw new IllegalArgumentException(
                        "job " + record.getJob() + ": worker record " + i + " of " + n + " is missing");
            }
            out.add(worker);
        }
        return out;
    }
}
