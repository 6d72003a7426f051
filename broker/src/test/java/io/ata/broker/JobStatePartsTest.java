package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.serde.AvroSerde;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job stored in parts ({@link JobStateParts}): its record and one record per worker, of which a
 * store writes only the workers that changed. Restored from what was written, through the stores'
 * serdes, the job is the one that wrote it, and the job's record does not grow with the fleet.
 */
class JobStatePartsTest {
    private static final String JOB = "job";
    private static final int BATCH = 4;
    private static final long NOW = 1_000_000;
    private static final BrokerSettings SETTINGS = BrokerSettings.defaults();

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final AvroSerde<JobState> jobSerde = new AvroSerde<>(registry, JobState.class);
    private final AvroSerde<JobWorkerState> workerSerde = new AvroSerde<>(registry, JobWorkerState.class);

    /** What the stores hold of the job: its record's bytes, each worker record's bytes and each chunk. */
    private final class Stores {
        byte[] job;
        final TreeMap<Integer, byte[]> workers = new TreeMap<>();
        final TreeMap<Integer, byte[]> chunks = new TreeMap<>();
        final TreeMap<Integer, byte[]> roster = new TreeMap<>();
        /** The bytes the last store wrote: the record, the worker records and the chunks. */
        int lastWritten;

        /** Writes the parts as the processor does; returns the worker indexes written. */
        Set<Integer> store(JobRuntime runtime) {
            JobStateParts parts = runtime.partsToStore();
            lastWritten = 0;
            parts.workers().forEach((i, w) -> {
                byte[] bytes = workerSerde.serializer().serialize("w", w);
                workers.put(i, bytes);
                lastWritten += bytes.length;
            });
            parts.learnedChunks().forEach((i, c) -> {
                chunks.put(i, c.clone());
                lastWritten += c.length;
            });
            parts.rosterChunks().forEach((i, c) -> {
                roster.put(i, c.clone());
                lastWritten += c.length;
            });
            job = jobSerde.serializer().serialize("j", parts.job());
            lastWritten += job.length;
            return parts.workers().keySet();
        }

        JobState record() {
            return jobSerde.deserializer().deserialize("j", job);
        }

        /** The worker records by index: the workers the job observed. */
        TreeMap<Integer, JobWorkerState> workerRecords() {
            TreeMap<Integer, JobWorkerState> out = new TreeMap<>();
            workers.forEach((i, b) -> out.put(i, workerSerde.deserializer().deserialize("w", b)));
            return out;
        }

        JobRuntime restore() {
            return JobRuntime.restore(parts(record(), workerRecords()), SETTINGS);
        }

        /** The job as read back, with its first {@code live} workers live: liveness is the membership's, not stored. */
        JobRuntime restore(int live) {
            JobRuntime restored = restore();
            restored.syncMembership(Records.aliveWorkers(live, NOW), NOW);
            return restored;
        }

        /** The job as read back with {@code record} and {@code workerRecords} in place of the stored ones. */
        JobStateParts parts(JobState record, SortedMap<Integer, JobWorkerState> workerRecords) {
            return new JobStateParts(record, workerRecords, chunks, roster);
        }
    }

    /** One round over the first {@code live} workers, worker {@code w} about {@code w + 1} times slower than w0. */
    private static List<TaskAssignment> play(JobRuntime runtime, long round, int live, Stores stores) {
        runtime.syncMembership(Records.aliveWorkers(live, NOW), NOW);
        List<TaskAssignment> assignments = runtime.allocate(round, round - 1, NOW);
        if (stores != null) {
            stores.store(runtime);
        }
        SplittableRandom rng = new SplittableRandom(round);
        List<RoundTiming> timings = RoundEvents.completed(assignments, (worker, task) -> {
            int w = Integer.parseInt(worker.substring(1));
            return 10.0 * (w + 1) * (0.5 + rng.nextExponential());
        });
        runtime.fold(RoundEvents.closed(JOB, round, BATCH, timings, NOW));
        if (stores != null) {
            stores.store(runtime);
        }
        return assignments;
    }

    /** Plays rounds 1 to {@code rounds} over {@code live} workers, storing after each event; returns what was stored. */
    private Stores playStored(JobRuntime runtime, long rounds, int live) {
        Stores stores = new Stores();
        for (long round = 1; round <= rounds; round++) {
            play(runtime, round, live, stores);
        }
        return stores;
    }

    private static JobRuntime newJob(String policy) {
        return JobRuntime.create(RoundEvents.opened(JOB, 1, BATCH, policy, NOW), SETTINGS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ata-auto", "uta", "ata-ert", "ata-hedge:2"})
    void aJobStoredInPartsRestoresToTheJobThatWroteIt(String policy) {
        JobRuntime original = newJob(policy);
        Stores stores = new Stores();
        for (long round = 1; round <= 60; round++) {
            play(original, round, round <= 30 ? 12 : 16, stores); // four workers join half-way
        }
        JobState record = stores.record();
        assertEquals(16, record.getWorkersApart());
        assertTrue(record.getWorkerIds().isEmpty() && record.getCount().isEmpty(), "no worker in the job's record");
        assertEquals(16, stores.workers.size());

        assertTrue(stores.restore().workerSummaries().stream().noneMatch(WorkerSummary::active), "not stored");
        JobRuntime restored = stores.restore(16);
        // liveness is taken afresh, so to a policy that caches plans over the live workers (ata-ert)
        // the fleet may have changed: the original is shown a change too, to compare like with like
        original.syncMembership(Records.aliveWorkers(15, NOW), NOW);
        original.syncMembership(Records.aliveWorkers(16, NOW), NOW);
        assertEquals(original.snapshot(), restored.snapshot(), "the same statistics, rounds and learned state");
        assertSameChoices(original, restored, 61, 16);
    }

    /** Plays ten rounds from {@code first} over {@code live} workers on both: the same assignments each round. */
    private static void assertSameChoices(JobRuntime original, JobRuntime restored, long first, int live) {
        for (long round = first; round < first + 10; round++) {
            assertEquals(
                    ids(play(original, round, live, null)),
                    ids(play(restored, round, live, null)),
                    "the same choices, round " + round);
        }
    }

    @Test
    void aRoundRewritesOnlyTheWorkersItUsed() {
        JobRuntime runtime = newJob("ata-auto");
        Stores stores = new Stores();
        Set<Integer> first = indexes(play(runtime, 1, 64, stores));
        assertEquals(first, stores.workers.keySet(), "the first round writes the workers it used, the roster the rest");
        for (long round = 2; round <= 40; round++) {
            runtime.syncMembership(Records.aliveWorkers(64, NOW), NOW);
            List<TaskAssignment> assignments = runtime.allocate(round, round - 1, NOW);
            Set<String> used =
                    assignments.stream().map(TaskAssignment::getWorkerId).collect(Collectors.toSet());
            Set<Integer> opened = stores.store(runtime);
            SplittableRandom rng = new SplittableRandom(round);
            runtime.fold(RoundEvents.closed(
                    JOB,
                    round,
                    BATCH,
                    RoundEvents.completed(assignments, (w, t) -> 10 * (0.5 + rng.nextExponential())),
                    NOW));
            Set<Integer> closed = stores.store(runtime);
            Set<String> written = new java.util.HashSet<>();
            opened.forEach(i -> written.add("w" + i));
            closed.forEach(i -> written.add("w" + i));
            assertTrue(used.containsAll(written), "round " + round + ": wrote " + written + ", used " + used);
            assertFalse(closed.isEmpty(), "round " + round + ": its statistics were written");
        }
        assertTrue(stores.store(runtime).isEmpty(), "nothing changed: no worker written");
        runtime.syncMembership(Records.aliveWorkers(63, NOW), NOW);
        assertFalse(runtime.workerSummaries().get(63).active());
        assertEquals(Set.of(), stores.store(runtime), "a worker gone: no record, liveness is the membership's");
    }

    @Test
    void theJobsRecordDoesNotGrowWithTheFleet() {
        int small = recordBytes(16);
        int large = recordBytes(1024);
        assertTrue(large < small + 512, "the job's record at 1,024 workers " + large + " B, at 16: " + small + " B");
        // the record in one piece, as before, grows with every worker
        JobRuntime whole = newJob("ata-auto");
        play(whole, 1, 1024, null);
        assertTrue(jobSerde.serializer().serialize("j", whole.snapshot()).length > 50 * 1024);
    }

    private int recordBytes(int workers) {
        JobRuntime runtime = newJob("ata-auto");
        Stores stores = playStored(runtime, 5, workers);
        return stores.job.length;
    }

    /**
     * ata-auto's width estimator keeps a reservoir of up to 4,096 samples (49 KB once full), which
     * belongs to no worker and changes at every observation, a few samples at a time: stored in
     * chunks, an event writes the chunks that changed.
     */
    @Test
    void aLongJobsEventWritesTheChunksThatChangedNotItsWholeLearnedState() {
        JobRuntime runtime = JobRuntime.create(RoundEvents.opened(JOB, 1, 10, "ata-auto", NOW), SETTINGS);
        Stores stores = new Stores();
        int most = 0;
        for (long round = 1; round <= 600; round++) {
            runtime.syncMembership(Records.aliveWorkers(16, NOW), NOW);
            List<TaskAssignment> assignments = runtime.allocate(round, round - 1, NOW);
            stores.store(runtime);
            int opened = stores.lastWritten;
            SplittableRandom rng = new SplittableRandom(round);
            runtime.fold(RoundEvents.closed(
                    JOB,
                    round,
                    10,
                    RoundEvents.completed(assignments, (w, t) -> 10 * (1 + rng.nextExponential())),
                    NOW));
            stores.store(runtime);
            if (round > 500) {
                most = Math.max(most, Math.max(opened, stores.lastWritten));
            }
        }
        int learned = runtime.snapshot().getLearnedState().getBytes().remaining();
        assertTrue(learned > 40_000, "the reservoir is full: " + learned + " B");
        assertTrue(most < learned / 5, "an event wrote at most " + most + " B of a learned state of " + learned);
        assertEquals(runtime.snapshot(), stores.restore(16).snapshot(), "and the chunks put back together are it");
    }

    @Test
    void aMissingChunkCostsTheLearningNotTheStatistics() {
        JobRuntime original = newJob("ata-auto");
        Stores stores = playStored(original, 30, 6);
        assertTrue(stores.chunks.size() >= 2, "chunks: " + stores.chunks.size());
        stores.chunks.remove(stores.chunks.firstKey());
        AtomicReference<IllegalArgumentException> refused = new AtomicReference<>();
        JobRuntime restored = JobRuntime.restoreOrRelearn(
                stores.parts(stores.record(), stores.workerRecords()), SETTINGS, refused::set);
        assertTrue(refused.get().getMessage().contains("chunk"), refused.get().getMessage());
        assertEquals(original.snapshot().getCount(), restored.snapshot().getCount(), "the statistics are kept");
    }

    @Test
    void aJobStoredWholeByAnEarlierBrokerIsStoredInPartsAtItsNextWrite() {
        JobRuntime original = newJob("ata-auto");
        for (long round = 1; round <= 20; round++) {
            play(original, round, 8, null);
        }
        JobState whole =
                jobSerde.deserializer().deserialize("j", jobSerde.serializer().serialize("j", original.snapshot()));
        assertEquals(0, whole.getWorkersApart());
        JobRuntime read = JobRuntime.restore(whole, SETTINGS);
        Stores stores = new Stores();
        assertEquals(8, stores.store(read).size(), "every worker it observed, the first time");
        assertEquals(original.snapshot(), stores.restore(8).snapshot());
    }

    @Test
    void aJobStoredInPartsBeforeTheRosterGainsItAtItsNextStore() {
        JobRuntime original = newJob("ata-auto");
        Stores stores = playStored(original, 20, 3);
        assertEquals(Set.of(0, 1, 2), stores.workers.keySet(), "a record of each worker, as before the roster");
        JobState before =
                JobState.newBuilder(stores.record()).setRosterChunks(0).build();
        stores.roster.clear();
        JobRuntime read = JobRuntime.restore(stores.parts(before, stores.workerRecords()), SETTINGS);
        assertEquals(Set.of(), stores.store(read), "its records stay as they are");
        assertFalse(stores.roster.isEmpty(), "its roster is written");
        assertEquals(original.snapshot(), stores.restore(3).snapshot());
    }

    @Test
    void malformedPartsAreRefused() {
        JobRuntime runtime = newJob("ata-auto");
        Stores stores = playStored(runtime, 5, 3);
        JobState record = stores.record();
        TreeMap<Integer, JobWorkerState> workers = stores.workerRecords();
        assertEquals(Set.of(0, 1, 2), workers.keySet());
        JobState both = JobState.newBuilder(record)
                .setWorkerIds(List.of("w0", "w1", "w2"))
                .build();
        assertThrows(IllegalArgumentException.class, () -> JobRuntime.restore(stores.parts(both, workers), SETTINGS));

        TreeMap<Integer, JobWorkerState> swapped = new TreeMap<>(Map.of(0, workers.get(1), 1, workers.get(0)));
        assertRefused(stores.parts(record, swapped), "is of w1, its roster names w0");
        JobState longer = JobState.newBuilder(record).setWorkersApart(4).build();
        assertRefused(stores.parts(longer, workers), "its roster of 4 worker(s): it names 3");
        byte[] cut = Arrays.copyOf(stores.roster.get(0), stores.roster.get(0).length - 1);
        stores.roster.put(0, cut);
        assertRefused(stores.parts(record, workers), "a roster entry of");
        stores.roster.remove(0);
        assertRefused(stores.parts(record, workers), "its roster has 1 chunk(s), 0 were read");

        // a roster naming a worker twice
        stores.roster.put(0, JobRoster.encode(List.of("w0", "w1", "w0")));
        TreeMap<Integer, JobWorkerState> twice = new TreeMap<>(workers);
        twice.put(2, workers.get(0));
        assertRefused(stores.parts(record, twice), "twice");

        // a job stored before the roster: every worker has a record
        JobState noRoster = JobState.newBuilder(record).setRosterChunks(0).build();
        workers.remove(2);
        assertRefused(stores.parts(noRoster, workers), "3 worker record(s)");
    }

    /**
     * A query reads a job's parts while the broker may write them, the job's record last: it may
     * see the record before a worker joined and the parts after. What is beyond the record's
     * workers is not read.
     */
    @Test
    void partsAheadOfTheJobsRecordAreNotRead() {
        JobRuntime original = newJob("ata-auto");
        Stores stores = playStored(original, 5, 3);
        JobState record = stores.record();
        play(original, 6, 4, stores); // w3 joins and is observed: the roster and a record of it
        assertTrue(stores.workers.containsKey(3));
        // as a query reads it (StoredJobs): its learned state, newer too, may be refused, not the job
        JobRuntime read =
                JobRuntime.restoreOrRelearn(stores.parts(record, stores.workerRecords()), SETTINGS, refused -> {});
        assertEquals(List.of("w0", "w1", "w2"), read.workerIds(), "the workers of the record read");
        assertEquals(5, read.lastClosedRound());
    }

    private static void assertRefused(JobStateParts parts, String because) {
        IllegalArgumentException refused =
                assertThrows(IllegalArgumentException.class, () -> JobRuntime.restore(parts, SETTINGS));
        assertTrue(refused.getMessage().contains(because), refused.getMessage());
    }

    @Test
    void aRefusedLearnedPartCostsTheLearningNotTheStatistics() {
        JobRuntime original = newJob("ata-auto");
        Stores stores = playStored(original, 30, 6);
        JobState record = stores.record();
        assertTrue(record.getLearnedState().getSplit(), "ata-auto's learned state is cut per worker");
        TreeMap<Integer, JobWorkerState> workers = stores.workerRecords();
        assertNotEquals(0, workers.get(1).getLearned().remaining(), "a worker's learned part");
        workers.put(
                1,
                JobWorkerState.newBuilder(workers.get(1))
                        .setLearned(ByteBuffer.wrap(new byte[] {1, 2, 3}))
                        .build());
        AtomicReference<IllegalArgumentException> refused = new AtomicReference<>();
        JobRuntime restored = JobRuntime.restoreOrRelearn(stores.parts(record, workers), SETTINGS, refused::set);
        assertTrue(refused.get() != null, "the corrupt part is refused");
        JobState before = original.snapshot();
        JobState after = restored.snapshot();
        assertEquals(before.getCount(), after.getCount(), "the statistics are kept");
        assertEquals(before.getSum(), after.getSum());
        assertEquals(before.getLastClosedRound(), after.getLastClosedRound());
        assertNotEquals(before.getLearnedState(), after.getLearnedState(), "the learning starts afresh");
        assertEquals(6, new Stores().store(restored).size());
    }

    @Test
    void aPolicyWithoutLearnedStateStoresStatisticsAlone() {
        JobRuntime runtime = newJob("uta");
        Stores stores = new Stores();
        play(runtime, 1, 4, stores);
        assertNull(stores.record().getLearnedState());
        stores.workerRecords()
                .values()
                .forEach(w -> assertEquals(0, w.getLearned().remaining()));
    }

    /** The indexes of the workers {@code assignments} go to (worker {@code w<i>} is index i: the fleet joins in order). */
    private static Set<Integer> indexes(List<TaskAssignment> assignments) {
        return assignments.stream()
                .map(a -> Integer.parseInt(a.getWorkerId().substring(1)))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * A job keeps a record of the workers it observed only: the roster names the others. At 1,000
     * jobs on 1,024 workers every job kept a record of every worker (1,024,000), where each used
     * about 13.
     */
    @Test
    void aWorkerTheJobHasNotObservedHasNoRecord() {
        JobRuntime original = newJob("ata-auto");
        Stores stores = playStored(original, 10, 64);
        JobState snapshot = original.snapshot();
        Set<Integer> observed = new TreeSet<>();
        for (int i = 0; i < 64; i++) {
            if (snapshot.getObserved().get(i) > 0) {
                observed.add(i);
            }
        }
        assertTrue(observed.size() < 64, "this job observed " + observed.size() + " of 64 workers");
        assertEquals(observed, stores.workers.keySet(), "a record for each worker it observed, none for the others");
        assertEquals(64, stores.record().getWorkersApart());
        assertTrue(stores.record().getRosterChunks() > 1, "the roster: 64 ids in chunks");

        JobStateParts again = stores.restore(64).partsToStore();
        assertTrue(
                again.workers().isEmpty()
                        && again.rosterChunks().isEmpty()
                        && again.learnedChunks().isEmpty(),
                "read back, the job has nothing to write: it is what it stored");
        JobRuntime restored = stores.restore(64);
        assertEquals(original.snapshot(), restored.snapshot(), "the same statistics, roster and learned state");
        assertSameChoices(original, restored, 11, 64);

        int lastChunk = stores.record().getRosterChunks() - 1;
        play(original, 21, 64, stores);
        original.syncMembership(Records.aliveWorkers(65, NOW), NOW); // w64 joins
        stores.roster.clear();
        assertEquals(Set.of(), stores.store(original), "a worker joining writes no worker record");
        assertEquals(Set.of(lastChunk), stores.roster.keySet(), "it changes the roster's last chunk");
    }

    private static List<String> ids(List<TaskAssignment> assignments) {
        return assignments.stream().map(a -> a.getWorkerId() + a.getTaskIds()).toList();
    }
}
