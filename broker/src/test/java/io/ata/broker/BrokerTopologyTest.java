package io.ata.broker;

import static io.ata.testsupport.Letters.assertReason;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BrokerTopologyTest extends BrokerTopologyFixture {
    private final BrokerSettings settings =
            BrokerSettings.defaults().withLiveness(Duration.ofSeconds(10), Duration.ofSeconds(1));

    @BeforeEach
    void start() {
        startBroker(settings);
    }

    private void heartbeat(String worker, int partition) {
        heartbeatStamped(worker, partition, now());
    }

    /** A heartbeat its agent stamped at {@code atMs}, reaching the broker now. */
    private void heartbeatStamped(String worker, int partition, long atMs) {
        WorkerHeartbeat h = Records.heartbeat(worker, atMs, partition)
                .setHost("h")
                .setDevice(DeviceKind.CPU)
                .build();
        workers.pipeInput(worker, h);
    }

    private long now() {
        return START.toEpochMilli() + elapsed;
    }

    private long elapsed;

    private void advance(Duration d) {
        elapsed += d.toMillis();
        driver.advanceWallClockTime(d);
    }

    private static RoundEvent opened(String job, long round, int batch, String policy) {
        return RoundEvents.opened(job, round, batch, policy, 0);
    }

    /** The CLOSED event of {@code round}: every assigned task completed, taking its worker's time in {@code ms}. */
    private static RoundEvent closed(String job, long round, List<TaskAssignment> assignments, Map<String, Double> ms) {
        return RoundEvents.closed(
                job, round, 0, RoundEvents.completed(assignments, (worker, task) -> ms.get(worker)), 0);
    }

    /** A counter of the broker, read back from the registry: the sum over the tags not given. */
    private double count(String meter, String... tags) {
        return meters.get(meter).tag(BrokerMetrics.APPLICATION, "broker-test").tags(tags).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    private List<TaskAssignment> drainTasks() {
        List<TaskAssignment> out = new ArrayList<>();
        for (TestRecord<String, TaskAssignment> r : tasks.readRecordsToList()) {
            assertEquals(r.key(), r.value().getWorkerId(), "key = worker id");
            out.add(r.value());
        }
        return out;
    }

    private static int total(List<TaskAssignment> assignments) {
        return assignments.stream().mapToInt(a -> a.getTaskIds().size()).sum();
    }

    @Test
    void allocatesEveryRoundToLiveWorkersOnTheirOwnPartitions() {
        heartbeat("w0", 0);
        heartbeat("w1", 1);
        heartbeat("w2", 2);
        rounds.pipeInput("job", opened("job", 1, 6, "ata-auto"));
        // the job's trainer gets the same assignments, keyed by the job (so in the job's partition)
        List<KeyValue<String, TaskAssignment>> viewed = allocations.readKeyValuesToList();
        List<TaskAssignment> round1 = drainTasks();
        assertEquals(round1, viewed.stream().map(kv -> kv.value).toList());
        assertTrue(viewed.stream().allMatch(kv -> kv.key.equals("job")), "keyed by job: " + viewed);
        assertEquals(6, total(round1));
        Map<String, Integer> partitionOf = Map.of("w0", 0, "w1", 1, "w2", 2);
        for (TaskAssignment a : round1) {
            assertEquals(partitionOf.get(a.getWorkerId()), a.getPartition());
            assertTrue(a.getTaskIds().stream().allMatch(id -> id.startsWith("job/1/")));
        }
        assertEquals(
                6,
                round1.stream().flatMap(a -> a.getTaskIds().stream()).distinct().count(),
                "distinct task ids");
        assertEquals(0, deadLetters.getQueueSize());
    }

    @Test
    void howLateEachRoundEventIsReadIsTimedFromItsRecordTimestamp() {
        heartbeat("w0", 0);
        // written 250 ms before the broker's clock reads it (the driver's clock stands at START)
        rounds.pipeInput("job", opened("job", 1, 2, "uta"), START.minusMillis(250));
        Timer opened = meters.get(BrokerMetrics.ROUND_EVENT_LAG)
                .tag(BrokerMetrics.APPLICATION, "broker-test")
                .tag(BrokerMetrics.TYPE, "OPENED")
                .timer();
        assertEquals(1, opened.count());
        assertEquals(250.0, opened.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        // a producer whose clock is ahead reads as no lag
        rounds.pipeInput("job", opened("job", 2, 2, "uta"), START.plusMillis(40));
        assertEquals(250.0, opened.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(2, opened.count());
    }

    @Test
    void liveAllocationsEqualTheSimulatorsPolicyFedTheSameTimings() {
        String[] ids = {"w0", "w1", "w2", "w3"};
        Map<String, Double> ms = Map.of("w0", 10.0, "w1", 20.0, "w2", 40.0, "w3", 80.0);
        for (int i = 0; i < ids.length; i++) {
            heartbeat(ids[i], i);
        }
        // The simulator's side: the same policy class over the same statistics.
        WorkerStats stats = new WorkerStats(0);
        Map<String, Integer> index = new HashMap<>();
        AllocationPolicy offline = PolicyFactory.create(
                "ata-auto",
                new PolicyContext(0, 8, new double[0], ConstantConvention.PAPER, Double.NaN, Double.NaN, "test"),
                7L,
                stats);
        for (long round = 1; round <= 40; round++) {
            rounds.pipeInput("job", opened("job", round, 8, "ata-auto"));
            List<TaskAssignment> live = drainTasks();
            assertEquals(8, total(live), "round " + round);
            if (round == 1) {
                for (String id : ids) {
                    index.put(id, stats.addWorker()); // the broker indexes workers by first heartbeat
                }
            }
            int[] expected = offline.plan(round).toArray(ids.length);
            int[] actual = new int[ids.length];
            for (TaskAssignment a : live) {
                actual[index.get(a.getWorkerId())] = a.getTaskIds().size();
            }
            assertArrayEquals(expected, actual, "round " + round);
            RoundEvent close = closed("job", round, live, ms);
            rounds.pipeInput("job", close);
            RoundOutcome outcome = new RoundOutcome(ids.length);
            outcome.reset(round, ids.length);
            for (RoundTiming t : close.getTimings()) {
                outcome.addCompleted(index.get(t.getWorkerId()), t.getComputeMs(), true);
            }
            outcome.foldInto(stats);
            offline.observe(outcome);
            heartbeat("w0", 0); // keep the fleet alive as time passes
        }
        JobState state = jobState();
        assertEquals(40, state.getLastClosedRound());
        for (String id : ids) {
            int i = state.getWorkerIds().indexOf(id);
            assertEquals(stats.count(index.get(id)), state.getCount().get(i), "count of " + id);
            assertEquals(stats.sum(index.get(id)), state.getSum().get(i), 1e-9, "sum of " + id);
        }
    }

    @Test
    void aClosedRoundIsFoldedExactlyOnceAndAReopenedRoundRepeatsItsAssignments() {
        heartbeat("w0", 0);
        heartbeat("w1", 1);
        rounds.pipeInput("job", opened("job", 1, 4, "uta"));
        List<TaskAssignment> first = drainTasks();
        rounds.pipeInput("job", opened("job", 1, 4, "uta"));
        List<TaskAssignment> again = drainTasks();
        assertEquals(
                first.stream().map(TaskAssignment::getTaskIds).toList(),
                again.stream().map(TaskAssignment::getTaskIds).toList(),
                "same task ids: idempotent");
        RoundEvent close = closed("job", 1, first, Map.of("w0", 5.0, "w1", 7.0));
        rounds.pipeInput("job", close);
        rounds.pipeInput("job", close);
        JobState state = jobState();
        assertEquals(4, state.getCount().stream().mapToLong(Long::longValue).sum(), "no double counting");
        assertEquals(1, count(BrokerCounter.DUPLICATES_IGNORED.meterName()));
        assertEquals(1, count(BrokerCounter.ROUNDS_REOPENED.meterName()));
        assertEquals(1L, metrics.snapshot().get("duplicate-closes"), "the JSON of GET /metrics");
        assertEquals(1L, metrics.snapshot().get("re-opened-rounds"));
    }

    /**
     * A job whose stored learned state its policy refuses (here cut short, as a corrupt store
     * would) is not stuck: its next round is allocated over its statistics with a policy learning
     * afresh, the refusal is counted, nothing is dead-lettered, and the state stored after is whole.
     */
    @Test
    void aJobWhoseStoredLearnedStateIsCorruptContinuesAndLearnsAfresh() {
        heartbeat("w0", 0);
        heartbeat("w1", 1);
        JobRuntime before = JobRuntime.create(opened("job", 1, 4, "ata-auto"), settings);
        before.syncMembership(Records.aliveWorkers(2, now()), now());
        List<TaskAssignment> first = before.allocate(1, 0, now());
        before.fold(closed("job", 1, first, Map.of("w0", 5.0, "w1", 7.0)));
        JobState corrupt = before.snapshot();
        ByteBuffer whole = corrupt.getLearnedState().getBytes();
        corrupt.getLearnedState().setBytes(ByteBuffer.wrap(new byte[] {1, 0, 0}));
        assertTrue(whole.remaining() > 3);
        KeyValueStore<String, JobState> jobs = driver.getKeyValueStore(BrokerTopology.JOBS_STORE);
        jobs.put("job", corrupt);

        rounds.pipeInput("job", opened("job", 2, 4, "ata-auto"));
        assertEquals(4, total(drainTasks()), "round 2 is allocated");
        assertTrue(deadLetters.isEmpty(), "no record is refused for it");
        assertEquals(1, count(BrokerCounter.LEARNED_STATES_DISCARDED.meterName()));
        assertEquals(1L, metrics.snapshot().get("learned-states-discarded"));
        JobState after = jobState();
        assertEquals(2, after.getLastOpenedRound());
        assertEquals(corrupt.getCount(), after.getCount(), "the statistics are kept");
        JobState record = jobs.get("job");
        // the state stored since, in parts, restores without a refusal
        JobRuntime.restore(
                StoredJobs.read(
                        record,
                        driver.getKeyValueStore(BrokerTopology.JOB_WORKERS_STORE),
                        driver.getKeyValueStore(BrokerTopology.JOB_LEARNED_STORE)),
                settings);
    }

    @Test
    void malformedAndOutOfRangeRecordsGoToTheDeadLetterTopicAndProcessingContinues() {
        heartbeat("w0", 0);
        rawRounds.pipeInput("job".getBytes(), "{not avro}".getBytes());
        rawRounds.pipeInput("job".getBytes(), new byte[] {0, 0, 0, 0x7f, 0x7f, 1, 2}); // unknown schema id
        rawWorkers.pipeInput("w9".getBytes(), new byte[] {1, 2, 3});
        rounds.pipeInput("job", opened("job", 1, 0, "ata-auto")); // batch 0
        rounds.pipeInput("job", opened("job", 0, 3, "ata-auto")); // round 0
        rounds.pipeInput("other", closed("other", 1, List.of(), Map.of())); // unknown job
        rounds.pipeInput("job", opened("job", 1, 3, "no-such-policy"));
        List<DeadLetter> letters = deadLetters.readValuesToList();
        assertEquals(7, letters.size(), letters.toString());
        assertReason(letters.get(0), "magic byte");
        assertReason(letters.get(1), "schema id");
        assertEquals(topics.workers().name(), letters.get(2).getSourceTopic());
        assertReason(letters.get(3), "batch 0");
        assertReason(letters.get(4), "round 0");
        assertReason(letters.get(5), "unknown job");
        assertReason(letters.get(6), "unknown policy");
        assertTrue(letters.stream().allMatch(l -> l.getValue() != null && l.getOffset() >= 0));
        assertEquals(
                6,
                count(
                        BrokerMetrics.DEAD_LETTERS,
                        BrokerMetrics.SOURCE,
                        topics.rounds().name()));
        assertEquals(
                1,
                count(
                        BrokerMetrics.DEAD_LETTERS,
                        BrokerMetrics.SOURCE,
                        topics.workers().name()));
        assertEquals(
                Map.of(
                        "dead-letters." + topics.rounds().name(),
                        6L,
                        "dead-letters." + topics.workers().name(),
                        1L),
                metrics.snapshot(),
                "the JSON of GET /metrics");
        rounds.pipeInput("job", opened("job", 1, 3, "ata-auto"));
        assertEquals(3, total(drainTasks()), "the stream kept running");
    }

    @Test
    void workersWhoseHeartbeatsStopReceiveNoTasksAndNewcomersAreExplored() {
        heartbeat("w0", 0);
        heartbeat("w1", 1);
        rounds.pipeInput("job", opened("job", 1, 4, "uta"));
        assertEquals(2, drainTasks().size());
        advance(Duration.ofSeconds(8));
        heartbeat("w0", 0);
        heartbeat("w2", 2);
        advance(Duration.ofSeconds(4)); // w1 silent for 12 s > 10 s
        rounds.pipeInput("job", opened("job", 2, 4, "uta"));
        List<TaskAssignment> round2 = drainTasks();
        assertEquals(
                List.of("w0", "w2"),
                round2.stream().map(TaskAssignment::getWorkerId).sorted().toList());
        JobState state = jobState();
        assertEquals(List.of(true, false, true), state.getActive());
    }

    @Test
    void anAssignmentToAPartitionTheTasksTopicLacksIsCounted() {
        heartbeat("w0", 1_000_000); // another deployment's layout
        rounds.pipeInput("job", opened("job", 1, 2, "uta"));

        List<TaskAssignment> assigned = drainTasks();
        assertEquals(2, total(assigned), "still allocated");
        assertEquals(1, count(BrokerCounter.ASSIGNMENTS_MISSING_PARTITION.meterName()));
        assertEquals(1L, metrics.snapshot().get("assignments-to-missing-partition"));
    }

    @Test
    void aRoundOpenedWithNoLiveWorkerWaitsForOneInsteadOfBeingDropped() {
        rounds.pipeInput("job", opened("job", 1, 4, "ata-auto"));
        assertEquals(0, tasks.getQueueSize());
        assertEquals(0, deadLetters.getQueueSize(), "not a bad record");
        heartbeat("w0", 0);
        advance(Duration.ofSeconds(1)); // the liveness punctuator runs
        List<TaskAssignment> assigned = drainTasks();
        assertEquals(4, total(assigned));
        assertEquals(1, assigned.get(0).getRound());
        assertEquals(1, count(BrokerCounter.ROUNDS_DEFERRED.meterName()));
    }

    /**
     * A round deferred before a restart (in the store, no event of its job since) is allocated by
     * the liveness check once a worker is live: the check goes over every stored job, not only
     * those this task has read an event of.
     */
    @Test
    void aRoundDeferredBeforeARestartIsAllocatedOnceAWorkerIsLive() {
        JobRuntime before = JobRuntime.create(opened("job", 1, 4, "ata-auto"), settings);
        before.deferOpen(1, 0);
        driver.<String, JobState>getKeyValueStore(BrokerTopology.JOBS_STORE).put("job", before.snapshot());
        heartbeat("w0", 0);
        advance(Duration.ofSeconds(1)); // the liveness punctuator runs
        List<TaskAssignment> assigned = drainTasks();
        assertEquals(4, total(assigned));
        assertEquals(1, assigned.get(0).getRound());
    }

    /**
     * A job without a round event (OPENED, CLOSED or OVERDUE) for the job retention is deleted from the store and
     * from memory, and counted; a job with events goes on. A CLOSED of the deleted job is then
     * refused as of an unknown job, and its OPENED starts it afresh.
     */
    @Test
    void aJobSilentForTheRetentionIsDeletedAndStartsAfreshIfItComesBack() {
        driver.close();
        startBroker(settings.withJobRetention(Duration.ofMinutes(10)));
        KeyValueStore<String, JobState> jobs = driver.getKeyValueStore(BrokerTopology.JOBS_STORE);
        heartbeat("w0", 0);
        rounds.pipeInput("stopped", opened("stopped", 1, 2, "uta"));
        rounds.pipeInput("running", opened("running", 1, 2, "uta"));
        List<TaskAssignment> running1 =
                drainTasks().stream().filter(a -> a.getJob().equals("running")).toList();

        advance(Duration.ofSeconds(400));
        rounds.pipeInput("running", closed("running", 1, running1, Map.of("w0", 5.0)));
        advance(Duration.ofSeconds(199));
        assertNotNull(jobs.get("stopped"), "silent for 599 s of 600");
        advance(Duration.ofSeconds(1));
        assertNull(jobs.get("stopped"), "silent for the retention: deleted");
        KeyValueStore<String, JobWorkerState> jobWorkers = driver.getKeyValueStore(BrokerTopology.JOB_WORKERS_STORE);
        assertNull(jobWorkers.get(JobStateParts.partKey("stopped", 0)), "its worker records too");
        assertNotNull(jobs.get("running"), "a CLOSED 200 s ago");
        assertNotNull(jobWorkers.get(JobStateParts.partKey("running", 0)));
        assertEquals(1, count(BrokerCounter.JOBS_RETIRED.meterName()));
        assertEquals(1L, metrics.snapshot().get("jobs-retired"));

        rounds.pipeInput("stopped", closed("stopped", 1, List.of(), Map.of()));
        DeadLetter letter = deadLetters.readValue();
        assertTrue(letter.getReason().contains("unknown job stopped"), letter.getReason());
        heartbeat("w0", 0);
        rounds.pipeInput("stopped", opened("stopped", 7, 2, "uta"));
        assertEquals(2, total(drainTasks()), "started afresh at its round");
        assertEquals(7, jobs.get("stopped").getLastOpenedRound());
        assertEquals(0, jobs.get("stopped").getLastClosedRound());
    }

    /**
     * A slow round's trainer sends only OVERDUE events: they keep its job. The time of an event
     * that writes nothing else (an OVERDUE with nothing to back up, a duplicate CLOSED) reaches the
     * store within a minute, so a restart does not count the retention from an older time. The
     * deleted job's gauges go with it.
     */
    @Test
    void overdueEventsAndDuplicateClosesKeepAJobAndTheirTimeIsStored() {
        driver.close();
        startBroker(settings.withJobRetention(Duration.ofMinutes(10)));
        KeyValueStore<String, JobState> jobs = driver.getKeyValueStore(BrokerTopology.JOBS_STORE);
        heartbeat("w0", 0);
        rounds.pipeInput("slow", opened("slow", 1, 2, "uta"));
        rounds.pipeInput("done", opened("done", 1, 2, "uta"));
        List<TaskAssignment> assigned = drainTasks();
        List<String> slowTasks = assigned.stream()
                .filter(a -> a.getJob().equals("slow"))
                .flatMap(a -> a.getTaskIds().stream())
                .toList();
        List<TaskAssignment> done1 =
                assigned.stream().filter(a -> a.getJob().equals("done")).toList();
        rounds.pipeInput("done", closed("done", 1, done1, Map.of("w0", 5.0)));
        assertFalse(gaugesOf("done").isEmpty(), "the job's worker gauges");

        long duplicateAt = 0;
        for (int i = 0; i < 4; i++) { // 4, 9, 14 and 19 minutes in: the slow round is still out
            advance(Duration.ofMinutes(4));
            heartbeat("w0", 0);
            long sentAt = now();
            rounds.pipeInput(
                    "slow", RoundEvents.overdue("slow", 1, "w0", slowTasks, 1_000, sentAt - START.toEpochMilli(), 0));
            if (i == 0) {
                duplicateAt = now();
                rounds.pipeInput("done", closed("done", 1, done1, Map.of("w0", 5.0))); // a duplicate
            }
            advance(Duration.ofSeconds(61)); // more than the slack: the next check writes the time
            assertEquals(sentAt, jobs.get("slow").getLastEventMs(), "OVERDUE " + i + "'s time stored");
            if (i == 0) {
                assertEquals(duplicateAt, jobs.get("done").getLastEventMs(), "the duplicate's time stored");
            } else if (i == 1) {
                assertNotNull(jobs.get("done"), "10 min after its CLOSED, 6 min after the duplicate: kept");
            }
        }
        assertNotNull(jobs.get("slow"), "OVERDUE events within the retention: kept");
        assertTrue(deadLetters.isEmpty(), "valid events");
        assertEquals(1, count(BrokerCounter.DUPLICATES_IGNORED.meterName()));
        assertNull(jobs.get("done"), "silent for the retention since the duplicate: deleted");
        assertTrue(gaugesOf("done").isEmpty(), "its gauges went with it");
    }

    /** The gauges of the registry tagged with {@code job}. */
    private List<Gauge> gaugesOf(String job) {
        return meters.getMeters().stream()
                .filter(m -> m instanceof Gauge && job.equals(m.getId().getTag(WorkerGauges.JOB)))
                .map(Gauge.class::cast)
                .toList();
    }

    /** A job stored before the broker kept when it last heard of one is kept for the retention from when it is read. */
    @Test
    void aJobStoredWithoutItsLastEventTimeIsKeptForTheRetentionFromWhenItIsRead() {
        driver.close();
        startBroker(settings.withJobRetention(Duration.ofMinutes(10)));
        KeyValueStore<String, JobState> jobs = driver.getKeyValueStore(BrokerTopology.JOBS_STORE);
        JobState old = JobRuntime.create(opened("old", 1, 4, "uta"), settings).snapshot();
        assertEquals(0, old.getLastEventMs());
        jobs.put("old", old);

        advance(Duration.ofSeconds(1)); // the first liveness check reads it
        long readAt = now();
        advance(Duration.ofSeconds(1));
        assertEquals(readAt, jobs.get("old").getLastEventMs(), 1_000, "the time filled in is stored");
        advance(Duration.ofSeconds(598));
        assertNotNull(jobs.get("old"), "599 s after it was read");
        advance(Duration.ofSeconds(1));
        assertNull(jobs.get("old"), "600 s after it was read");
    }

    /**
     * A broker down for longer than the retention does not delete its stored jobs at its first
     * check: their trainers' events may be waiting in the rounds topic. Each gets a grace (ten
     * minutes) from the start to be heard from.
     */
    @Test
    void aBrokerBackFromALongOutageGivesItsStoredJobsAGraceBeforeDeletingThem() {
        driver.close();
        startBroker(settings.withJobRetention(Duration.ofHours(24)));
        KeyValueStore<String, JobState> jobs = driver.getKeyValueStore(BrokerTopology.JOBS_STORE);
        JobRuntime before = JobRuntime.create(opened("job", 1, 4, "uta"), settings);
        before.heardAt(now() - Duration.ofDays(2).toMillis()); // last heard two days before the start
        jobs.put("job", before.snapshot());

        advance(Duration.ofSeconds(1)); // the first liveness check reads them
        assertNotNull(jobs.get("job"), "not deleted at once");
        advance(Duration.ofSeconds(598));
        assertNotNull(jobs.get("job"), "within the grace");
        heartbeat("w0", 0);
        rounds.pipeInput("job", opened("job", 1, 4, "uta")); // its trainer is back
        advance(Duration.ofSeconds(2));
        assertNotNull(jobs.get("job"), "heard from within the grace: kept");
        assertEquals(0, count(BrokerCounter.JOBS_RETIRED.meterName()));
    }

    /** A worker removed from the membership (a tombstone) gets nothing more, though it was live a moment ago. */
    @Test
    void aWorkerRemovedFromTheMembershipGetsNoMoreTasks() {
        heartbeat("w0", 0);
        heartbeat("w1", 1);
        rounds.pipeInput("job", opened("job", 1, 4, "uta"));
        assertEquals(List.of("w0", "w1"), workersOf(drainTasks()));
        TestDrivers.rawInput(driver, topics.membership())
                .pipeInput("w1".getBytes(StandardCharsets.UTF_8), (byte[]) null);
        rounds.pipeInput("job", opened("job", 2, 4, "uta"));
        assertEquals(List.of("w0"), workersOf(drainTasks()));
        heartbeat("w1", 1);
        rounds.pipeInput("job", opened("job", 3, 4, "uta"));
        assertEquals(List.of("w0", "w1"), workersOf(drainTasks()), "and comes back with its next heartbeat");
    }

    private static List<String> workersOf(List<TaskAssignment> assignments) {
        return assignments.stream().map(TaskAssignment::getWorkerId).sorted().toList();
    }

    @Test
    void heartbeatsThatAllReachTheBrokerLateDoNotMakeTheirWorkersLookGone() {
        heartbeat("w0", 0);
        advance(Duration.ofSeconds(15)); // the membership path falls 12 s behind
        heartbeatStamped("w0", 0, START.toEpochMilli() + 3_000);
        advance(Duration.ofSeconds(3));
        heartbeatStamped("w0", 0, START.toEpochMilli() + 6_000);
        assertEquals(12.0, meters.get(BrokerMetrics.MEMBERSHIP_DELAY).gauge().value(), "seconds");

        // w0's last heartbeat is 12 s old, past the 10 s timeout, but so late is every heartbeat
        rounds.pipeInput("job", opened("job", 1, 4, "ata-auto"));
        assertEquals(4, total(drainTasks()), "allocated, not deferred");
        assertEquals(0, count(BrokerCounter.ROUNDS_DEFERRED.meterName()));

        // and a worker that stops is still gone after the timeout plus the lag
        advance(Duration.ofSeconds(10));
        assertEquals(List.of(true), jobState().getActive(), "22 s after its last heartbeat");
        assertNotNull(workerGauge("w0"), "the rounds' view: live");
        advance(Duration.ofSeconds(2));
        assertEquals(List.of(false), jobState().getActive(), "24 s after its last heartbeat");
        assertNull(workerGauge("w0"), "the liveness check took it out of the rounds' view");
    }

    /** A gauge of {@code worker} in the job: there while the rounds count it live. */
    private Gauge workerGauge(String worker) {
        return meters.find(WorkerGauges.MEAN).tag(WorkerGauges.WORKER, worker).gauge();
    }

    @Test
    void aWorkerComingOrGoingWritesNothingToTheJobsState() {
        for (int w = 0; w < 4; w++) {
            heartbeat("w" + w, w);
        }
        rounds.pipeInput("job", opened("job", 1, 4, "ata-auto"));
        assertEquals(4, total(drainTasks()));
        TestOutputTopic<byte[], byte[]> jobsChangelog = changelog(BrokerTopology.JOBS_STORE);
        TestOutputTopic<byte[], byte[]> workersChangelog = changelog(BrokerTopology.JOB_WORKERS_STORE);
        TestOutputTopic<byte[], byte[]> chunksChangelog = changelog(BrokerTopology.JOB_LEARNED_STORE);
        assertFalse(jobsChangelog.isEmpty(), "the job's first store wrote its record");
        assertTrue(
                chunksChangelog.readKeyValuesToList().stream()
                        .anyMatch(kv -> new String(kv.key, StandardCharsets.UTF_8).equals("job#roster0")),
                "and its roster");
        jobsChangelog.readRecordsToList();
        workersChangelog.readRecordsToList();

        advance(Duration.ofSeconds(6));
        for (int w = 0; w < 3; w++) { // w3 goes, w4 comes
            heartbeat("w" + w, w);
        }
        heartbeat("w4", 4);
        advance(Duration.ofSeconds(6)); // w3 silent for 12 s > 10 s
        assertNull(workerGauge("w3"), "w3 is gone from the rounds' view");
        assertNotNull(workerGauge("w4"), "w4 is in it");
        assertEquals(List.of(true, true, true, false, true), jobState().getActive(), "the job's view");
        assertTrue(jobsChangelog.isEmpty(), "no write of the job's record");
        assertTrue(workersChangelog.isEmpty(), "no write of a worker's record");
        assertTrue(chunksChangelog.isEmpty(), "no write of its roster or learned state");
    }

    private TestOutputTopic<byte[], byte[]> changelog(String store) {
        return driver.createOutputTopic(
                "broker-test-" + store + "-changelog",
                Serdes.ByteArray().deserializer(),
                Serdes.ByteArray().deserializer());
    }

    @Test
    void aPathFurtherBehindThanSixTimeoutsNoLongerKeepsWorkersLive() {
        heartbeat("w0", 0);
        advance(Duration.ofSeconds(100));
        heartbeatStamped("w0", 0, START.toEpochMilli() + 3_000); // 97 s late
        advance(Duration.ofSeconds(3));
        heartbeatStamped("w0", 0, START.toEpochMilli() + 6_000);

        // judged 60 s back (six timeouts), w0's heartbeat is 37 s old
        rounds.pipeInput("job", opened("job", 1, 4, "ata-auto"));
        assertEquals(0, tasks.getQueueSize(), "the round waits for a fresh heartbeat");
        assertEquals(1, count(BrokerCounter.ROUNDS_DEFERRED.meterName()));
    }

    @Test
    void aWorkerSilentPastTheTimeoutIsGoneWhenHeartbeatsArrivePromptly() {
        heartbeat("w0", 0);
        advance(Duration.ofSeconds(2));
        heartbeat("w0", 0);
        advance(Duration.ofSeconds(3));
        heartbeat("w0", 0); // refreshes, 0 ms late
        advance(Duration.ofSeconds(11));

        rounds.pipeInput("job", opened("job", 1, 4, "ata-auto"));
        assertEquals(0, tasks.getQueueSize(), "no live worker: the round waits");
        assertEquals(1, count(BrokerCounter.ROUNDS_DEFERRED.meterName()));
    }

    /** The job's whole state, its record and its workers' put together. */
    private JobState jobState() {
        return DriverJobs.whole(driver, settings, "job", settings.membershipClock(now(), metrics.membershipDelay()));
    }

    @Test
    void anUnchangedHeartbeatRefreshesMembershipOnlyOncePerQuarterOfTheLivenessTimeout() {
        TestOutputTopic<String, WorkerHeartbeat> membership = driver.createOutputTopic(
                topics.membership().name(),
                Serdes.String().deserializer(),
                topics.workers().valueSerde(registry).deserializer());
        heartbeat("w0", 0);
        assertEquals(1, membership.readRecordsToList().size(), "a newcomer is forwarded");

        advance(Duration.ofMillis(1000));
        heartbeat("w0", 0);
        advance(Duration.ofMillis(1000));
        heartbeat("w0", 0);
        assertTrue(membership.readRecordsToList().isEmpty(), "nothing new within 2.5 s (liveness 10 s / 4)");
        assertEquals(2, count(BrokerCounter.HEARTBEATS_UNCHANGED.meterName()));

        heartbeat("w0", 3); // a rebalance moved its partition: at once
        List<TestRecord<String, WorkerHeartbeat>> moved = membership.readRecordsToList();
        assertEquals(1, moved.size());
        assertEquals(List.of(3), moved.get(0).value().getPartitions());

        advance(Duration.ofMillis(2500));
        heartbeat("w0", 3); // unchanged, but the stored one is 2.5 s old: refreshed
        List<TestRecord<String, WorkerHeartbeat>> refreshed = membership.readRecordsToList();
        assertEquals(1, refreshed.size());
        assertEquals(now(), refreshed.get(0).value().getTimestampMs());

        WorkerHeartbeat leaving = Records.heartbeat("w0", now(), 3)
                .setHost("h")
                .setDevice(DeviceKind.CPU)
                .setStatus(WorkerStatus.LEAVING)
                .build();
        workers.pipeInput("w0", leaving);
        assertEquals(
                WorkerStatus.LEAVING,
                membership.readRecordsToList().get(0).value().getStatus(),
                "a status change goes on at once");
    }

    private static List<String> tasksOf(List<TaskAssignment> assignments, String worker) {
        return assignments.stream()
                .filter(a -> a.getWorkerId().equals(worker))
                .flatMap(a -> a.getTaskIds().stream())
                .toList();
    }

    /**
     * Under {@code uta}, a policy without deadlines, the trainer's OVERDUE (sent past its stall
     * bound) still gets copies; the copy, stuck in turn, gets one more on a third worker; the
     * same reports again, or from a worker holding every other copy, send nothing more; and
     * opening the round again re-emits the copies with the round.
     */
    @Test
    void overdueUnderAPolicyWithoutDeadlinesGetsCopiesAndAStuckCopyAFurtherOne() {
        heartbeat("w0", 0);
        heartbeat("w1", 1);
        heartbeat("w2", 2);
        rounds.pipeInput("job", opened("job", 1, 6, "uta"));
        rounds.pipeInput("job", closed("job", 1, drainTasks(), Map.of("w0", 10.0, "w1", 20.0, "w2", 30.0)));
        rounds.pipeInput("job", opened("job", 2, 6, "uta"));
        List<TaskAssignment> round = drainTasks();
        List<String> stuck = tasksOf(round, "w0");
        assertEquals(2, stuck.size());
        assertEquals(0.0, round.get(0).getDeadlineMs(), "uta gives no deadline");

        advance(Duration.ofMillis(500)); // every worker's own tasks should be done by now
        rounds.pipeInput("job", RoundEvents.overdue("job", 2, "w0", stuck, 400, 500, 0));
        List<TaskAssignment> copies = drainTasks();
        assertEquals(
                List.of("w1", "w2"),
                copies.stream().map(TaskAssignment::getWorkerId).toList());
        assertEquals(List.of(stuck.get(0)), copies.get(0).getTaskIds(), "w1 (20 ms) first");
        assertEquals(List.of(stuck.get(1)), copies.get(1).getTaskIds(), "then w2 (30 ms) beats w1's second (40 ms)");
        for (TaskAssignment copy : copies) {
            assertEquals("w0", copy.getBackupOf());
            assertEquals(Integer.parseInt(copy.getWorkerId().substring(1)), copy.getPartition());
            assertEquals(0.0, copy.getDeadlineMs(), "a copy has no deadline");
        }

        advance(Duration.ofMillis(500));
        rounds.pipeInput("job", RoundEvents.overdue("job", 2, "w1", List.of(stuck.get(0)), 500, 1000, 0));
        List<TaskAssignment> further = drainTasks();
        assertEquals(1, further.size(), further.toString());
        assertEquals("w2", further.get(0).getWorkerId(), "neither the original's worker nor the stuck copy's");
        assertEquals("w0", further.get(0).getBackupOf(), "still a copy of w0's task");
        assertEquals(List.of(stuck.get(0)), further.get(0).getTaskIds());

        rounds.pipeInput("job", RoundEvents.overdue("job", 2, "w0", stuck, 900, 1000, 0));
        rounds.pipeInput("job", RoundEvents.overdue("job", 2, "w1", List.of(stuck.get(0)), 900, 1000, 0));
        rounds.pipeInput("job", RoundEvents.overdue("job", 2, "w2", List.of(stuck.get(0)), 900, 1000, 0));
        assertTrue(tasks.isEmpty(), "every live worker holds it, the same reports again send nothing");
        assertTrue(deadLetters.isEmpty(), "an OVERDUE of a copy's tasks is valid");
        assertEquals(3, count(BrokerCounter.BACKUP_TASKS.meterName()));

        rounds.pipeInput("job", opened("job", 2, 6, "uta"));
        List<TaskAssignment> again = drainTasks();
        assertEquals(6, again.size(), "three assignments and three copies: " + again);
        assertEquals(
                List.of("w0", "w0", "w0"),
                again.stream()
                        .map(TaskAssignment::getBackupOf)
                        .filter(b -> !b.isEmpty())
                        .toList());
    }

    @Test
    void theBrokerCountsTheRunningJobsOfEachRoundsPartition() {
        heartbeat("w0", 0);
        int jobs = RoundsPartitionLoad.ADVISED_JOBS_PER_PARTITION + 2;
        for (int i = 0; i < jobs; i++) {
            rounds.pipeInput("job-" + i, opened("job-" + i, 1, 1, "uta"));
        }
        Gauge perPartition = meters.get(RoundsPartitionLoad.JOBS_PER_PARTITION)
                .tag(BrokerMetrics.APPLICATION, "broker-test")
                .gauge();
        advance(Duration.ofSeconds(1)); // the liveness check counts them
        assertEquals(jobs, perPartition.value(), "every job of the test's one partition runs");

        advance(RoundsPartitionLoad.RUNNING_WINDOW.plusSeconds(1)); // no round event since
        assertEquals(0, perPartition.value(), "a job quiet for a minute is not running");
    }
}
