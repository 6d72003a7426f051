package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.TaskAssignment;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A job's stored state that cannot be read (bytes of no record, parts that do not fit together:
 * a store's changelog is a topic anyone with access can write to, and a restart restores what is
 * there) is deleted and the job starts afresh at its next OPENED event. The stream thread does not
 * fail on it and the job is not frozen by every one of its events being refused.
 */
class UnreadableStoredStateTest extends BrokerTopologyFixture {
    private static final byte[] GARBAGE = "not a record".getBytes(StandardCharsets.UTF_8);
    private final BrokerSettings settings = BrokerSettings.defaults();

    @BeforeEach
    void start() {
        startBroker(settings);
        workers.pipeInput("w0", Records.heartbeat("w0", START.toEpochMilli(), 0).build());
        workers.pipeInput("w1", Records.heartbeat("w1", START.toEpochMilli(), 1).build());
    }

    /** Puts bytes into a store as its changelog's restore would, below its serdes. */
    @SuppressWarnings("unchecked")
    private void putRaw(String store, String key, byte[] value) {
        KeyValueStore<Bytes, byte[]> raw = (KeyValueStore<Bytes, byte[]>)
                ((WrappedStateStore<?, ?, ?>) driver.getAllStateStores().get(store)).wrapped();
        raw.put(Bytes.wrap(key.getBytes(StandardCharsets.UTF_8)), value);
    }

    private double discarded() {
        return meters.get(BrokerCounter.STORED_STATES_DISCARDED.meterName()).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /** Runs round {@code round} of the job: its assignments, then its close. */
    private List<TaskAssignment> play(String job, long round) {
        rounds.pipeInput(job, RoundEvents.opened(job, round, 4, "ata-auto", 0));
        List<TaskAssignment> assigned = tasks.readValuesToList().stream()
                .filter(a -> a.getJob().equals(job) && a.getRound() == round)
                .toList();
        rounds.pipeInput(
                job,
                RoundEvents.closed(
                        job,
                        round,
                        4,
                        RoundEvents.completed(
                                assigned, (w, t) -> Map.of("w0", 5.0, "w1", 9.0).get(w)),
                        0));
        return assigned;
    }

    @Test
    void aJobRecordOfGarbageIsDeletedAndTheJobStartsAfresh() {
        storedJob("other");
        putRaw(BrokerTopology.JOBS_STORE, "job", GARBAGE);
        putRaw(BrokerTopology.JOB_WORKERS_STORE, "job#0", GARBAGE);
        putRaw(BrokerTopology.JOB_WORKERS_STORE, "job#7", GARBAGE); // a worker record of nothing

        driver.advanceWallClockTime(Duration.ofSeconds(1)); // the first liveness check reads every job
        assertEquals(1, discarded(), "the job's state is dropped, once");
        assertNull(rawGet(BrokerTopology.JOBS_STORE, "job"));
        assertNull(rawGet(BrokerTopology.JOB_WORKERS_STORE, "job#0"));
        assertNull(rawGet(BrokerTopology.JOB_WORKERS_STORE, "job#7"));

        rounds.pipeInput("job", RoundEvents.opened("job", 4, 4, "ata-auto", 0));
        assertEquals(4, total(tasks.readValuesToList()), "round 4 is allocated, the job afresh");
        JobState state = DriverJobs.whole(driver, settings, "job");
        assertEquals(4, state.getLastOpenedRound());
        assertEquals(0, state.getCount().stream().mapToLong(Long::longValue).sum(), "nothing learned yet");
        assertEquals(3, DriverJobs.whole(driver, settings, "other").getLastClosedRound(), "the other job is kept");
        play("other", 4);
        assertEquals(1, discarded());
    }

    @SuppressWarnings("unchecked")
    private byte[] rawGet(String store, String key) {
        KeyValueStore<Bytes, byte[]> raw = (KeyValueStore<Bytes, byte[]>)
                ((WrappedStateStore<?, ?, ?>) driver.getAllStateStores().get(store)).wrapped();
        return raw.get(Bytes.wrap(key.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * A job of three rounds over w0 and w1 as a broker before this one stored it (the stores as a
     * restart restores them: the job is read from them at its first event here).
     */
    private void storedJob(String job) {
        JobRuntime runtime = JobRuntime.create(RoundEvents.opened(job, 1, 4, "ata-auto", 0), settings);
        for (long round = 1; round <= 3; round++) {
            runtime.syncMembership(Records.aliveWorkers(2, START.toEpochMilli()), START.toEpochMilli());
            List<TaskAssignment> assigned = runtime.allocate(round, round - 1, START.toEpochMilli());
            runtime.fold(RoundEvents.closed(job, round, 4, RoundEvents.completed(assigned, (w, t) -> 5.0), 0));
        }
        JobStateParts parts = runtime.partsToStore();
        KeyValueStore<String, JobWorkerState> workerStore = driver.getKeyValueStore(BrokerTopology.JOB_WORKERS_STORE);
        parts.workers().forEach((i, w) -> workerStore.put(JobStateParts.partKey(job, i), w));
        KeyValueStore<String, byte[]> chunkStore = driver.getKeyValueStore(BrokerTopology.JOB_LEARNED_STORE);
        parts.learnedChunks().forEach((i, c) -> chunkStore.put(JobStateParts.partKey(job, i), c));
        parts.rosterChunks().forEach((i, c) -> chunkStore.put(JobStateParts.rosterKey(job, i), c));
        driver.<String, JobState>getKeyValueStore(BrokerTopology.JOBS_STORE).put(job, parts.job());
    }

    @Test
    void aWorkerRecordOfGarbageCostsTheJobsStateNotTheJob() {
        storedJob("job");
        putRaw(BrokerTopology.JOB_WORKERS_STORE, "job#1", GARBAGE);

        rounds.pipeInput("job", RoundEvents.closed("job", 4, 4, List.of(), 0)); // of a job it no longer has
        assertEquals(1, discarded());
        assertTrue(
                deadLetters.readValuesToList().stream()
                        .anyMatch(l -> l.getReason().contains("unknown job")),
                "the event is refused, with its reason");
        play("job", 5);
        assertEquals(1, discarded());
        assertEquals(5, DriverJobs.whole(driver, settings, "job").getLastClosedRound());
    }

    @Test
    void aWorkerRecordUnderAKeyOfNoWorkerCostsTheJobsStateNotTheJob() {
        storedJob("job");
        KeyValueStore<String, JobWorkerState> workers = driver.getKeyValueStore(BrokerTopology.JOB_WORKERS_STORE);
        workers.put("job#x", workers.get("job#0"));

        List<TaskAssignment> round4 = play("job", 4);
        assertEquals(4, total(round4), "the job goes on, afresh");
        assertEquals(1, discarded());
        assertNull(workers.get("job#x"), "deleted with the job's other parts");
    }

    @Test
    void aRecordWhoseRosterIsMissingCostsTheJobsStateNotTheJob() {
        storedJob("job");
        driver.getKeyValueStore(BrokerTopology.JOB_LEARNED_STORE).delete(JobStateParts.rosterKey("job", 0));

        List<TaskAssignment> round4 = play("job", 4);
        assertEquals(4, total(round4), "the job goes on, afresh");
        assertEquals(1, discarded());
        assertEquals(4, DriverJobs.whole(driver, settings, "job").getLastClosedRound());
    }

    private static int total(List<TaskAssignment> assignments) {
        return assignments.stream().mapToInt(a -> a.getTaskIds().size()).sum();
    }
}
