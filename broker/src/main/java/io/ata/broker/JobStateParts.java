package io.ata.broker;

import io.ata.schemas.JobNames;
import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A job's state as the broker stores it: the job's own record in the {@code jobs} store (its
 * rounds, allocations and what its policy learned for all workers), one record per worker in the
 * {@code job-workers} store, keyed {@code <job>#<index>}, and the bytes of what the policy learned
 * for all workers in chunks of {@link #CHUNK_BYTES} in the {@code job-learned} store, keyed the same
 * way. A round changes the few workers it used and a few chunks, so only those records are written
 * again: rewriting every worker's statistics at each round event made a job's write grow with the
 * fleet (about 100 KB a write at 1,024 workers), and rewriting {@code ata-auto}'s width estimator
 * (a reservoir of up to 4,096 samples, 49 KB) cost that much at every event whatever the fleet.
 *
 * <p>A worker the job has not observed, whose part is a fresh worker's, has no record: its id is in
 * the job's roster ({@link JobRoster}), kept in chunks in the {@code job-learned} store under keys
 * {@code <job>#roster<index>}. Every worker of the fleet having a record made the stores grow with
 * jobs times fleet (1,024,000 records at 1,000 jobs on 1,024 workers, of which each job used about
 * 13).
 *
 * @param job           the job's record; its per-worker arrays are empty, {@code workers_apart}
 *     says how many workers it has, {@code roster_chunks} and its learned state's {@code chunks}
 *     how many chunks of each
 * @param workers       worker records by index: to write, those that changed since the job's last
 *     store; read, every one there is
 * @param learnedChunks the learned state's chunks by index, the same way
 * @param rosterChunks  the roster's chunks by index, the same way
 */
public record JobStateParts(
        JobState job,
        SortedMap<Integer, JobWorkerState> workers,
        SortedMap<Integer, byte[]> learnedChunks,
        SortedMap<Integer, byte[]> rosterChunks) {
    /** The size of a chunk of the learned state: small, as an event changes a few samples of 12 bytes here and there. */
    public static final int CHUNK_BYTES = 256;

    /** Between a job's name and a part's index in the part's key: no job name contains it. */
    static final char SEPARATOR = JobNames.SLICE_SEPARATOR;

    public JobStateParts {
        workers = Collections.unmodifiableSortedMap(new TreeMap<>(workers));
        learnedChunks = Collections.unmodifiableSortedMap(new TreeMap<>(learnedChunks));
        rosterChunks = Collections.unmodifiableSortedMap(new TreeMap<>(rosterChunks));
    }

    /** A job whose record holds all of it, as brokers before the parts stored it. */
    public static JobStateParts whole(JobState record) {
        return new JobStateParts(record, new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
    }

    /** The key of part {@code index} of {@code job}: worker {@code index}'s record, or chunk {@code index}. */
    public static String partKey(String job, int index) {
        return job + SEPARATOR + index;
    }

    /** The key of chunk {@code index} of {@code job}'s roster, in the store of the learned state's chunks. */
    public static String rosterKey(String job, int index) {
        return job + SEPARATOR + "roster" + index;
    }

    /** What the keys of every part of {@code job}, and of no other job, begin with. */
    public static String partKeyPrefix(String job) {
        return job + SEPARATOR;
    }
}
