package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.JobState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Records the broker must refuse (found by fuzzing a live deployment): each gives exactly
 * one dead letter with its reason (or, on the internal membership topic, a skip that is counted),
 * changes no state, and the next good record is processed as if it had never come. A bad timing
 * of a CLOSED event is the exception: it alone is left out, named in the event's one dead letter,
 * and the round is folded with the others.
 */
class BrokerRefusalTest {
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final int TASK_PARTITIONS = 4;
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final Topics topics = new Topics();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final BrokerMetrics metrics = new BrokerMetrics(meters, "refusal-test");
    private TopologyTestDriver driver;
    private TestInputTopic<String, WorkerHeartbeat> workers;
    private TestInputTopic<String, WorkerHeartbeat> membershipTopic;
    private TestInputTopic<String, RoundEvent> rounds;
    private TestOutputTopic<String, TaskAssignment> tasks;
    private TestOutputTopic<String, byte[]> deadLetterBytes;

    @BeforeEach
    void start() {
        driver = TestDrivers.exactlyOnce(
                BrokerTopology.build(BrokerSettings.defaults(), registry, metrics, () -> TASK_PARTITIONS),
                "refusal-test",
                START);
        workers = input(topics.workers());
        membershipTopic = input(topics.membership());
        rounds = input(topics.rounds());
        tasks = TestDrivers.output(driver, topics.tasks(), registry);
        deadLetterBytes = driver.createOutputTopic(
                topics.deadLetters().name(),
                Serdes.String().deserializer(),
                Serdes.ByteArray().deserializer());
    }

    @AfterEach
    void stop() {
        driver.close();
        registry.close();
    }

    private <V extends SpecificRecord> TestInputTopic<String, V> input(TopicDef<V> topic) {
        return driver.createInputTopic(
                topic.name(),
                Serdes.String().serializer(),
                topic.valueSerde(registry).serializer());
    }

    private static WorkerHeartbeat heartbeat(String worker, List<Integer> partitions, long atMs) {
        return Records.heartbeat(worker, atMs, partitions).build();
    }

    private static long now() {
        return START.toEpochMilli();
    }

    private KeyValueStore<String, WorkerHeartbeat> membership() {
        return driver.getKeyValueStore(BrokerTopology.MEMBERSHIP_STORE);
    }

    private JobState job() {
        return DriverJobs.whole(driver, BrokerSettings.defaults(), "job");
    }

    /** The dead letters written so far, decoded from their real Avro bytes. */
    private List<DeadLetter> letters() {
        List<DeadLetter> out = new ArrayList<>();
        for (byte[] bytes : deadLetterBytes.readValuesToList()) {
            out.add(topics.deadLetters()
                    .valueSerde(registry)
                    .deserializer()
                    .deserialize(topics.deadLetters().name(), bytes));
        }
        return out;
    }

    private double deadLetters(String source, Refusal.Kind kind) {
        Counter c = meters.find(BrokerMetrics.DEAD_LETTERS)
                .tags(BrokerMetrics.SOURCE, source, BrokerMetrics.REASON, kind.tag())
                .counter();
        return c == null ? 0 : c.count();
    }

    /** Exactly one dead letter came, of {@code source}, saying {@code says}, counted under {@code kind}. */
    private void assertOneDeadLetter(String source, Refusal.Kind kind, String says) {
        List<DeadLetter> letters = letters();
        assertEquals(1, letters.size(), letters.toString());
        DeadLetter letter = letters.get(0);
        assertEquals(source, letter.getSourceTopic());
        assertTrue(letter.getReason().contains(says), letter.getReason());
        assertEquals(1, deadLetters(source, kind), "counted with reason " + kind.tag());
    }

    // ---- membership: the global store's thread must survive anything on its topic

    @Test
    void garbageOnTheMembershipTopicIsSkippedAndTheGlobalStoreGoesOn() {
        membershipTopic.pipeInput("w0", heartbeat("w0", List.of(0), now()));
        byte[] random = new byte[64];
        new Random(9).nextBytes(random);
        TestInputTopic<byte[], byte[]> rawMembership = TestDrivers.rawInput(driver, topics.membership());

        assertDoesNotThrow(() -> rawMembership.pipeInput("w0".getBytes(StandardCharsets.UTF_8), new byte[0]));
        assertDoesNotThrow(() -> rawMembership.pipeInput("w0".getBytes(StandardCharsets.UTF_8), random));
        membershipTopic.pipeInput("w0", heartbeat("w0", List.of(-1, 5000), now())); // forged

        assertEquals(List.of(0), membership().get("w0").getPartitions(), "the valid heartbeat stays");
        assertEquals(
                2,
                meters.get(BrokerMetrics.MEMBERSHIP_REFUSED)
                        .tag(BrokerMetrics.REASON, Refusal.Kind.UNDECODABLE.tag())
                        .counter()
                        .count());
        assertEquals(
                1,
                meters.get(BrokerMetrics.MEMBERSHIP_REFUSED)
                        .tag(BrokerMetrics.REASON, Refusal.Kind.INVALID_HEARTBEAT.tag())
                        .counter()
                        .count());
        assertEquals(3L, metrics.snapshot().get("membership-refused"));

        membershipTopic.pipeInput("w1", heartbeat("w1", List.of(1), now()));
        assertNotNull(membership().get("w1"), "the next record is stored");
        membershipTopic.pipeInput("w1", (WorkerHeartbeat) null);
        assertNull(membership().get("w1"), "a tombstone removes the worker");
    }

    // ---- workers

    @Test
    void aHeartbeatListingPartitionsTheTasksTopicLacksIsRefused() {
        workers.pipeInput("w0", heartbeat("w0", List.of(-1, 5000), now()));
        assertOneDeadLetter(topics.workers().name(), Refusal.Kind.INVALID_HEARTBEAT, "partition");
        assertNull(membership().get("w0"));

        workers.pipeInput("w0", heartbeat("w0", List.of(TASK_PARTITIONS - 1), now()));
        assertEquals(List.of(TASK_PARTITIONS - 1), membership().get("w0").getPartitions());
    }

    @Test
    void aHeartbeatFromTheFarFutureIsRefused() {
        long yearAhead = now() + Duration.ofDays(365).toMillis();
        workers.pipeInput("w0", heartbeat("w0", List.of(0), yearAhead));
        assertOneDeadLetter(
                topics.workers().name(),
                Refusal.Kind.INVALID_HEARTBEAT,
                "heartbeat of w0 has timestamp_ms " + yearAhead + ", "
                        + Duration.ofDays(365).toMillis() + " ms ahead of the broker's clock (" + now()
                        + "), more than the");
        assertNull(membership().get("w0"));
    }

    @Test
    void aHeartbeatWithoutATimeIsRefusedForThatAlone() {
        workers.pipeInput("w0", heartbeat("w0", List.of(0), 0));
        assertOneDeadLetter(
                topics.workers().name(),
                Refusal.Kind.INVALID_HEARTBEAT,
                "heartbeat of w0 has timestamp_ms 0, not positive");
        assertNull(membership().get("w0"));
    }

    @Test
    void aHeartbeatWithAControlCharacterInItsIdIsRefused() {
        workers.pipeInput("w\u0000", heartbeat("w\u0000", List.of(0), now()));
        assertOneDeadLetter(topics.workers().name(), Refusal.Kind.INVALID_HEARTBEAT, "control character");
    }

    @Test
    void aHeartbeatNamingATaskConsumerWithAControlCharacterIsRefused() {
        WorkerHeartbeat h = heartbeat("w0", List.of(0), now());
        h.setTaskConsumer("node\n1");
        workers.pipeInput("w0", h);
        assertOneDeadLetter(topics.workers().name(), Refusal.Kind.INVALID_HEARTBEAT, "names a task consumer");
        assertNull(membership().get("w0"));
    }

    @Test
    void aHugeRecordsDeadLetterIsTruncatedAndFitsInOneRequest() {
        byte[] huge = new byte[1_048_405]; // accepted by Kafka at its default limit
        new Random(1).nextBytes(huge);
        TestDrivers.rawInput(driver, topics.workers()).pipeInput("w0".getBytes(StandardCharsets.UTF_8), huge);

        List<byte[]> written = deadLetterBytes.readValuesToList();
        assertEquals(1, written.size());
        assertTrue(written.get(0).length < 1024 * 1024 - 1024, written.get(0).length + " bytes");
        DeadLetter letter = topics.deadLetters()
                .valueSerde(registry)
                .deserializer()
                .deserialize(topics.deadLetters().name(), written.get(0));
        assertTrue(letter.getTruncated());
        assertEquals(huge.length, letter.getValueSize());
        assertTrue(letter.getReason().contains("truncated"), letter.getReason());
        assertEquals(1, deadLetters(topics.workers().name(), Refusal.Kind.UNDECODABLE));

        workers.pipeInput("w0", heartbeat("w0", List.of(0), now()));
        assertNotNull(membership().get("w0"), "the next record is processed");
    }

    // ---- rounds: forged but valid events against the job's state

    /** Job "job" (batch 4) with round 1 folded and round 2 open; returns round 2's assignments. */
    private List<TaskAssignment> jobWithRoundTwoOpen() {
        workers.pipeInput("w0", heartbeat("w0", List.of(0), now()));
        workers.pipeInput("w1", heartbeat("w1", List.of(1), now()));
        rounds.pipeInput("job", RoundEvents.opened("job", 1, 4, "uta", 0));
        List<TaskAssignment> first = tasks.readValuesToList();
        rounds.pipeInput("job", RoundEvents.closed("job", 1, 4, RoundEvents.completed(first, (w, t) -> 10.0), 0));
        rounds.pipeInput("job", RoundEvents.opened("job", 2, 4, "uta", 0));
        List<TaskAssignment> second = tasks.readValuesToList();
        assertEquals(4, second.stream().mapToInt(a -> a.getTaskIds().size()).sum());
        assertTrue(letters().isEmpty());
        return second;
    }

    private static RoundEvent closedWith(long round, RoundTiming timing) {
        return RoundEvents.closed("job", round, 4, List.of(timing), 0);
    }

    /** {@code forged} gives one dead letter of {@code kind} saying {@code says}, and the job is as it was. */
    private void assertRefusedAndNothingMoved(RoundEvent forged, Refusal.Kind kind, String says) {
        List<TaskAssignment> open = jobWithRoundTwoOpen();
        JobState before = job();

        rounds.pipeInput("job", forged);

        assertOneDeadLetter(topics.rounds().name(), kind, says);
        assertEquals(before, job(), "no statistic moved");
        assertTrue(tasks.isEmpty(), "nothing allocated");
        // the job goes on: round 2 closes and round 3 is allocated
        rounds.pipeInput("job", RoundEvents.closed("job", 2, 4, RoundEvents.completed(open, (w, t) -> 20.0), 0));
        rounds.pipeInput("job", RoundEvents.opened("job", 3, 4, "uta", 0));
        assertEquals(2, job().getLastClosedRound());
        assertEquals(3, job().getLastOpenedRound());
        assertEquals(
                4,
                tasks.readValuesToList().stream()
                        .mapToInt(a -> a.getTaskIds().size())
                        .sum());
        assertTrue(letters().isEmpty());
    }

    private String taskOfRoundTwo() {
        return "job/2/0";
    }

    @Test
    void aClosedEventOfAFarRoundIsRefused() {
        assertRefusedAndNothingMoved(
                closedWith(1L << 30, RoundEvents.completed("w0", "job/2/0", 5)),
                Refusal.Kind.ROUND_OUT_OF_WINDOW,
                "not at or next to the open round");
    }

    @Test
    void aRoundPastTheLimitIsRefused() {
        assertRefusedAndNothingMoved(
                RoundEvents.opened("job", 1L << 60, 4, "uta", 0), Refusal.Kind.INVALID_ROUND_EVENT, "out of range");
    }

    @Test
    void anOpenedEventOfAFarRoundIsRefused() {
        assertRefusedAndNothingMoved(
                RoundEvents.opened("job", 9, 4, "uta", 0),
                Refusal.Kind.ROUND_OUT_OF_WINDOW,
                "not at or next to the open round");
    }

    @Test
    void anOpenedEventWithAnotherBatchIsRefused() {
        assertRefusedAndNothingMoved(
                RoundEvents.opened("job", 3, 1000, "uta", 0), Refusal.Kind.INVALID_ROUND_EVENT, "the job's is 4");
    }

    @Test
    void aJobNamedLikeAnotherJobsModelSliceIsRefused() {
        // "job#1" is the key of slice 1 of job "job"'s model: compaction would mix the two
        assertRefusedAndNothingMoved(
                RoundEvents.opened("job#1", 3, 4, "uta", 0), Refusal.Kind.INVALID_ROUND_EVENT, "contains '#'");
    }

    @Test
    void aJobNameLongerThanATaskIdAllowsIsRefused() {
        assertRefusedAndNothingMoved(
                RoundEvents.opened("j".repeat(256), 3, 4, "uta", 0),
                Refusal.Kind.INVALID_ROUND_EVENT,
                "256 characters (at most 255)");
    }

    @Test
    void anOpenedEventAtAnInconsistentModelVersionIsRefused() {
        RoundEvent e = RoundEvents.opened("job", 3, 4, "uta", 0);
        e.setModelVersion(1L << 60);
        assertRefusedAndNothingMoved(e, Refusal.Kind.INVALID_ROUND_EVENT, "model version");
    }

    /** Statistics folded so far: completed tasks over every worker of the job. */
    private long folded() {
        return job().getCount().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Round 2 closes with every task completed in 20 ms and {@code bad} among them: one dead letter
     * of the CLOSED record names the bad timing's worker and task and says {@code says}, the round
     * is folded with the four good timings, and the job goes on.
     */
    private void assertLeftOutAloneAndTheOthersFolded(RoundTiming bad, String says) {
        List<TaskAssignment> open = jobWithRoundTwoOpen();
        long before = folded();
        List<RoundTiming> timings = new ArrayList<>(RoundEvents.completed(open, (w, t) -> 20.0));
        timings.add(1, bad);

        rounds.pipeInput("job", RoundEvents.closed("job", 2, 4, timings, 0));

        List<DeadLetter> letters = letters();
        assertEquals(1, letters.size(), letters.toString());
        String reason = letters.get(0).getReason();
        assertEquals(topics.rounds().name(), letters.get(0).getSourceTopic());
        assertTrue(reason.contains(says), reason);
        assertTrue(reason.contains("worker " + bad.getWorkerId() + ", task " + bad.getTaskId()), reason);
        assertTrue(reason.contains("1 of 5 timings left out"), reason);
        assertEquals(1, deadLetters(topics.rounds().name(), Refusal.Kind.INVALID_TIMING));
        assertEquals(1L, metrics.snapshot().get("timings-left-out"));
        assertEquals(2, job().getLastClosedRound(), "the round is folded");
        assertEquals(before + 4, folded(), "with its four good timings");
        rounds.pipeInput("job", RoundEvents.opened("job", 3, 4, "uta", 0));
        assertEquals(
                4,
                tasks.readValuesToList().stream()
                        .mapToInt(a -> a.getTaskIds().size())
                        .sum());
        assertTrue(letters().isEmpty());
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, -1, 1e300, 7 * 24 * 3600 * 1000.0 + 1})
    void aComputeTimeOutOfRangeIsLeftOutAlone(double computeMs) {
        assertLeftOutAloneAndTheOthersFolded(RoundEvents.completed("w0", taskOfRoundTwo(), computeMs), "compute_ms");
    }

    @ParameterizedTest
    @ValueSource(doubles = {Double.NaN, -5, 1e300})
    void anImpossibleArrivalTimeIsLeftOutAlone(double arrival) {
        RoundTiming t = RoundEvents.completed("w0", taskOfRoundTwo(), 10);
        t.setArrivalMs(arrival);
        assertLeftOutAloneAndTheOthersFolded(t, "arrival_ms");
    }

    @Test
    void aTaskThatWasNotAssignedIsLeftOutAlone() {
        assertLeftOutAloneAndTheOthersFolded(RoundEvents.completed("w0", "job/2/99", 5), "not assigned");
    }

    @Test
    void aCancelledTaskOfALaterRoundIsLeftOutAlone() {
        RoundTiming t = RoundEvents.completed("w1", "job/9/0", 5);
        t.setStatus(io.ata.schemas.TimingStatus.CANCELLED);
        assertLeftOutAloneAndTheOthersFolded(t, "no task of this job");
    }

    /** The forged timing of a worker never heard of does not cost the round the statistics of the others. */
    @Test
    void aTimingOfAWorkerNeverHeardOfIsLeftOutAlone() {
        assertLeftOutAloneAndTheOthersFolded(
                RoundEvents.completed("intruder", taskOfRoundTwo(), 5), "never sent a heartbeat");
        assertTrue(!job().getWorkerIds().contains("intruder"), "it joins no job");
    }

    @Test
    void severalBadTimingsGiveOneLetterNamingEachAndAreCountedEach() {
        List<TaskAssignment> open = jobWithRoundTwoOpen();
        List<RoundTiming> timings = new ArrayList<>(RoundEvents.completed(open, (w, t) -> 20.0));
        timings.add(RoundEvents.completed("intruder", "job/2/1", 5));
        timings.add(RoundEvents.completed("w1", "job/2/77", 5));

        rounds.pipeInput("job", RoundEvents.closed("job", 2, 4, timings, 0));

        List<DeadLetter> letters = letters();
        assertEquals(1, letters.size(), "one letter per record");
        String reason = letters.get(0).getReason();
        assertTrue(reason.contains("2 of 6 timings left out"), reason);
        assertTrue(
                reason.contains("worker intruder, task job/2/1") && reason.contains("worker w1, task job/2/77"),
                reason);
        assertEquals(2L, metrics.snapshot().get("timings-left-out"));
        assertEquals(
                2,
                meters.get(BrokerCounter.TIMINGS_LEFT_OUT.meterName()).counter().count());
        assertEquals(2, job().getLastClosedRound());
    }

    @Test
    void aRoundTimeOutOfRangeRefusesTheWholeEvent() {
        List<TaskAssignment> open = jobWithRoundTwoOpen();
        JobState before = job();
        RoundEvent closed = RoundEvents.closed("job", 2, 4, RoundEvents.completed(open, (w, t) -> 20.0), 0);
        closed.setRoundTimeMs(Double.POSITIVE_INFINITY);
        rounds.pipeInput("job", closed);
        assertOneDeadLetter(topics.rounds().name(), Refusal.Kind.INVALID_TIMING, "round_time_ms");
        assertEquals(before, job(), "no statistic moved");
    }

    @Test
    void aTaskCompletedTwiceIsRefused() {
        RoundTiming t = RoundEvents.completed("w0", taskOfRoundTwo(), 5);
        assertRefusedAndNothingMoved(
                RoundEvents.closed("job", 2, 4, List.of(t, t), 0), Refusal.Kind.INVALID_TIMING, "completed twice");
    }

    @Test
    void aClosedEventOfAnUnknownJobIsRefused() {
        assertRefusedAndNothingMoved(
                RoundEvents.closed("other", 1, 4, List.of(), 0), Refusal.Kind.UNKNOWN_JOB, "unknown job");
    }
}
