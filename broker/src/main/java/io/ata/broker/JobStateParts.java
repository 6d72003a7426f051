package io.ata.broker;

import io.ata.schemas.JobNames;
import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A job's state as the broker stores it: the job's own record in the {@code jobs} store (its
 * rounds, allocations and what its policy learned for all workers), and one record per worker in
 * the {@code job-workers} store, keyed {@code <job>#<index>}. A round changes the few workers it
 * used, so only their records are written again: rewriting every worker's statistics at each round
 * event made a job's write grow with the fleet (about 100 KB a write at 1,024 workers).
 *
 * @param job     the job's record; its per-worker arrays are empty, {@code workers_apart} says how
 *     many worker records it has
 * @param workers the worker records to write, by worker index: those that changed since the job's
 *     last store (every one the first time)
 */
public record JobStateParts(JobState job, SortedMap<Integer, JobWorkerState> workers) {
    /** Between a job's name and a worker's index in a worker record's key: no job name contains it. */
    static final char SEPARATOR = JobNames.SLICE_SEPARATOR;

    public JobStateParts {
        workers = Collections.unmodifiableSortedMap(new TreeMap<>(workers));
    }

    /** The key of worker {@code index}'s record of {@code job}. */
    public static String workerKey(String job, int index) {
        return job + SEPARATOR + index;
    }

    /** What the keys of every worker record of {@code job}, and of no other job, begin with. */
    public static String workerKeyPrefix(String job) {
        return job + SEPARATOR;
    }

    /**
     * The worker index a key of {@code job}'s worker records names.
     *
     * @throws IllegalArgumentException if it names none
     */
    public static int indexOf(String job, String key) {
        String prefix = workerKeyPrefix(job);
        if (key.startsWith(prefix)) {
            try {
                int index = Integer.parseInt(key.substring(prefix.length()));
                if (index >= 0) {
                    return index;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
        }
        throw new IllegalArgumentException(
                "job " + job + ": '" + key + "' is not the key of one of its worker records");
    }
}
