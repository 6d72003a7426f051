package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.bench.fleet.VirtualFleet;
import io.ata.local.LocalDeployment;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.TaskResult;
import io.ata.testsupport.EndToEnd;
import io.ata.testsupport.Records;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.AgentMetrics;
import io.ata.workeragent.WorkerAgent;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Pipelined allocation as an agent sees it, on the embedded Kafka broker without the ATA broker:
 * the models and assignments are published by hand, as the trainer and the broker would. Round 2's
 * assignment (model version 1) comes while the newest model is 0, and a backup copy of round 1
 * comes behind it in the same partition: the copy runs at once while round 2 is parked, and the
 * partition's committed offset stays at the parked record; when version 1 comes, round 2 runs and
 * the offset moves past both. An assignment further ahead is parked too, never waited for on the
 * task thread: the copy behind it runs at once, and it is dead-lettered after the model wait (a
 * real agent and the virtual fleet alike). A round planned ahead of a job that stopped (no model
 * comes any more) is dead-lettered once it and the job's model have been quiet for the stalled-job
 * wait, so its partition's offset moves on.
 */
@EndToEnd
@Execution(ExecutionMode.CONCURRENT) // each test a deployment of its own, waiting out 10-20 s patiences
class AgentParkingTest {
    private static final String JOB = "park";
    private static final String WORKER = "park-agent";
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /**
     * The model wait of the far-ahead cases: long enough that a loaded machine runs the record behind
     * the far one, and the test sees it, well before the far one is dead-lettered.
     */
    private static final Duration FAR_AHEAD_WAIT = Duration.ofSeconds(20);
    /** The stalled-job wait of the stopped-job cases: as long, for the same reason. */
    private static final Duration STALLED_JOB_WAIT = Duration.ofSeconds(20);
    /**
     * The stalled-job wait of the moving-job case: its job's model moves at half of it, and the test
     * looks at a quarter past it: waited a quarter (4 s) over the limit, quiet a quarter under it.
     */
    private static final Duration MOVING_JOB_WAIT = Duration.ofSeconds(16);
    /**
     * The model retention of the forgotten-model case: short, so the model is forgotten within two
     * of it, and long enough that the test sees it held again after it is read again.
     */
    private static final Duration MODEL_RETENTION = Duration.ofSeconds(8);

    private LocalDeployment local;
    private HandPublisher hand;

    @BeforeEach
    void start() {
        hand = HandPublisher.embedded("park.", JOB);
        local = hand.local();
    }

    @AfterEach
    void stop() {
        hand.close();
    }

    /** The offset the agents' group committed for tasks partition 0, or -1 if none. */
    private long committedOffset(String group) throws ExecutionException, InterruptedException {
        try (Admin admin = local.kafka().admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            OffsetAndMetadata o =
                    offsets.get(new TopicPartition(local.topics().tasks().name(), 0));
            return o == null ? -1 : o.offset();
        }
    }

    /** Waits until a result of task {@code taskId} is on the gradients topic. */
    private void awaitResult(String what, String taskId) {
        await(what)
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100))
                .until(hand::resultTaskIds, ids -> ids.contains(taskId));
    }

    /** Waits until the dead-letter topic holds {@code count} letters; their reasons by the offset each refused. */
    private Map<Long, String> awaitDeadLetters(String what, int count) {
        List<DeadLetter> letters = await(what)
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> TopicContents.values(local, local.topics().deadLetters()), l -> l.size() >= count);
        assertEquals(count, letters.size(), letters.toString());
        Map<Long, String> reasons = new HashMap<>();
        letters.forEach(l -> reasons.put(l.getOffset(), l.getReason()));
        return reasons;
    }

    /**
     * Checks a stopped job's dead letter: it names the time the assignment actually waited, at
     * least the stalled-job wait, and the job's model quiet as long.
     */
    private static void assertStalledReason(String reason) {
        Matcher m = Pattern.compile(": model version \\d+ waited (PT\\S+) while the job's model stayed at version 0"
                        + " \\(nothing of it read for (PT\\S+)\\): its job looks stopped")
                .matcher(reason);
        assertTrue(m.find(), reason);
        assertTrue(Duration.parse(m.group(1)).compareTo(STALLED_JOB_WAIT) >= 0, "waited: " + reason);
        assertTrue(Duration.parse(m.group(1)).compareTo(PATIENCE) < 0, "waited: " + reason);
        assertTrue(Duration.parse(m.group(2)).compareTo(STALLED_JOB_WAIT) >= 0, "quiet: " + reason);
    }

    /** Waits until {@code group}'s committed offset of tasks partition 0 is {@code offset}. */
    private void awaitCommitted(String group, long offset) {
        await("the offset moved past both")
                .atMost(PATIENCE)
                .until(() -> committedOffset(group), committed -> committed == offset);
    }

    /** Starts the agent, with {@code modelWait}, once model version 0 is published; returns when it owns the partition. */
    private WorkerAgent startAgent(Duration modelWait) {
        return startAgent(local.agentConfig(WORKER).modelWait(modelWait));
    }

    /** Starts the agent once model version 0 is published; returns when it owns the partition. */
    private WorkerAgent startAgent(AgentConfig.Builder config) {
        hand.publishModel(0); // round 1 is open: its model, version 0, is the newest
        WorkerAgent agent = local.startAgent(config.build());
        await("the agent owns the tasks partition")
                .atMost(PATIENCE)
                .until(() -> agent.ownedPartitions().equals(List.of(0)));
        return agent;
    }

    @Test
    void aRoundPlannedAheadIsParkedWhileTheBackupCopyBehindItRunsAndRunsWhenItsModelComes() throws Exception {
        WorkerAgent agent = startAgent(AgentConfig.DEFAULT_MODEL_WAIT);
        String group = agent.config().groupId();

        // round 2 planned ahead (version 1), then a copy of a slow worker's round-1 task behind it
        long parked =
                hand.publishAssignment(Records.assignment(JOB, 2, WORKER, 2).build());
        long copy = hand.publishAssignment(
                Records.assignment(JOB, 1, "slow-worker", 1).build());
        assertTrue(copy > parked);

        awaitResult("the copy behind the parked round ran", JOB + "/1/0");
        await("its offset committed").atMost(PATIENCE).until(() -> committedOffset(group) >= 0);
        assertEquals(parked, committedOffset(group), "not past the parked record");
        assertEquals(List.of(JOB + "/1/0"), hand.resultTaskIds(), "round 2 waits for its model");
        assertEquals(1, agent.metrics().assignmentsParked());

        hand.publishModel(1); // round 1 closes

        await("the parked round ran")
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100))
                .until(hand::resultTaskIds, ids -> ids.size() == 3);
        awaitCommitted(group, copy + 1);
        List<TaskResult> results = TopicContents.values(local, local.topics().gradients());
        assertEquals(
                List.of(JOB + "/1/0", JOB + "/2/0", JOB + "/2/1"),
                results.stream().map(TaskResult::getTaskId).toList());
        for (TaskResult r : results.subList(1, 3)) {
            assertEquals(1, r.getModelVersion(), "computed at the version that came");
            assertEquals(WORKER, r.getWorkerId());
        }
        assertEquals(2, agent.metrics().assignmentsCompleted());
        assertEquals(0, agent.metrics().deadLetters());
        assertTrue(agent.isRunning(), agent.failure().toString());
    }

    /**
     * Round 2 planned ahead of a job whose trainer then stops, and round 5 far ahead (version 4:
     * forged, or a model reader far behind), both parked, then a copy of round 1 behind them: the
     * copy runs at once, and each parked one is dead-lettered by its own rule, the one ahead once its
     * job's model stayed quiet for the stalled-job wait, the far one after the model wait.
     */
    @Test
    void parkedAssignmentsAreDeadLetteredEachByItsOwnRuleWithoutHoldingTheCopyBehindThem() throws Exception {
        WorkerAgent agent =
                startAgent(local.agentConfig(WORKER).modelWait(FAR_AHEAD_WAIT).stalledJobWait(STALLED_JOB_WAIT));
        String group = agent.config().groupId();

        long parked =
                hand.publishAssignment(Records.assignment(JOB, 2, WORKER, 1).build());
        long farAhead =
                hand.publishAssignment(Records.assignment(JOB, 5, WORKER, 1).build());
        long copy = hand.publishAssignment(
                Records.assignment(JOB, 1, "slow-worker", 1).build());

        awaitResult("the copy behind the parked ones ran", JOB + "/1/0");
        // a wait on the task thread would have dead-lettered a parked one before running the copy
        assertEquals(List.of(), TopicContents.values(local, local.topics().deadLetters()), "still parked");
        assertEquals(parked, committedOffset(group), "not past the oldest parked record");

        Map<Long, String> reasons = awaitDeadLetters("both dead-lettered", 2);
        assertEquals(Set.of(parked, farAhead), reasons.keySet());
        assertTrue(reasons.get(parked).startsWith("job park round 2: model version 1 waited PT"), reasons.get(parked));
        assertStalledReason(reasons.get(parked));
        assertTrue(
                reasons.get(farAhead).contains("model version 4 did not arrive within PT20S (the newest is 0)"),
                reasons.get(farAhead));
        awaitCommitted(group, copy + 1);
        assertEquals(List.of(JOB + "/1/0"), hand.resultTaskIds(), "neither parked round ran");
        assertEquals(2, agent.metrics().deadLetters());
        assertTrue(agent.isRunning(), agent.failure().toString());
    }

    /**
     * A job's model quiet for the model retention is dropped from the agent's memory; when an
     * assignment of the job comes after all, the agent reads the model topic's partition again and
     * runs it, instead of dead-lettering it as of a job without a model.
     */
    @Test
    void aJobsModelForgottenAfterTheRetentionIsReadAgainWhenTheJobComesBack() throws Exception {
        WorkerAgent agent = startAgent(
                local.agentConfig(WORKER).stalledJobWait(Duration.ofSeconds(2)).modelRetention(MODEL_RETENTION));
        await("the model read").atMost(PATIENCE).until(agent::modelsKept, n -> n == 1);
        await("the model forgotten once quiet for the retention")
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100))
                .until(agent::modelsKept, n -> n == 0);

        hand.publishAssignment(Records.assignment(JOB, 1, WORKER, 1).build()); // the job is back

        awaitResult("the assignment ran on the model read again", JOB + "/1/0");
        assertEquals(List.of(), TopicContents.values(local, local.topics().deadLetters()), "nothing refused");
        assertEquals(1, agent.modelsKept());
        assertEquals(
                1.0,
                agent.config()
                        .meterRegistry()
                        .get(AgentMetrics.MODELS)
                        .tag(AgentMetrics.WORKER, WORKER)
                        .gauge()
                        .value(),
                "the gauge of the models held");
        assertTrue(agent.isRunning(), agent.failure().toString());
    }

    /** The virtual fleet's agents follow the same two rules as the agents above. */
    @Test
    void theVirtualFleetDeadLettersParkedAssignmentsEachByItsOwnRuleToo() throws Exception {
        hand.publishModel(0);
        try (VirtualFleet fleet = hand.startFleet(
                VirtualFleet.Settings.of(1).withStalledJobWait(STALLED_JOB_WAIT).withModelWait(FAR_AHEAD_WAIT))) {
            String agent = fleet.workerIds().get(0);

            long parked =
                    hand.publishAssignment(Records.assignment(JOB, 2, agent, 1).build());
            long farAhead =
                    hand.publishAssignment(Records.assignment(JOB, 5, agent, 1).build());
            hand.publishAssignment(Records.assignment(JOB, 1, agent, 1).build());

            awaitResult("the assignment behind the parked ones ran", JOB + "/1/0");
            assertEquals(List.of(), TopicContents.values(local, local.topics().deadLetters()), "still parked");
            Map<Long, String> reasons = awaitDeadLetters("both dead-lettered", 2);
            assertEquals(Set.of(parked, farAhead), reasons.keySet());
            assertStalledReason(reasons.get(parked));
            assertTrue(
                    reasons.get(farAhead).contains("model version 4 did not arrive within PT20S"),
                    reasons.get(farAhead));
            assertEquals(2, fleet.counts().deadLetters());
            assertTrue(fleet.failure().isEmpty(), "no client failed: " + fleet.failure());
        }
    }

    @Test
    void theVirtualFleetKeepsARoundPlannedAheadPastTheStalledJobWaitWhileItsJobsModelMoves() throws Exception {
        hand.publishModel(0);
        try (VirtualFleet fleet = hand.startFleet(VirtualFleet.Settings.of(1).withStalledJobWait(MOVING_JOB_WAIT))) {
            String agent = fleet.workerIds().get(0);

            // round 3 planned two ahead (version 2); the job's model moves half-way through the wait
            hand.publishAssignment(Records.assignment(JOB, 3, agent, 1).build());
            hand.publishAssignment(Records.assignment(JOB, 1, agent, 1).build());
            awaitResult("the assignment behind the parked one ran", JOB + "/1/0");
            Thread.sleep(MOVING_JOB_WAIT.dividedBy(2).toMillis());
            hand.publishModel(1);
            Thread.sleep(MOVING_JOB_WAIT.multipliedBy(3).dividedBy(4).toMillis());

            // waited past the limit, but the job's model was read less than the limit ago: a slow round
            assertEquals(List.of(), TopicContents.values(local, local.topics().deadLetters()), "still parked");
            hand.publishModel(2);
            awaitResult("the parked round ran once its version came", JOB + "/3/0");
            assertEquals(0, fleet.counts().deadLetters());
            assertTrue(fleet.failure().isEmpty(), "no client failed: " + fleet.failure());
        }
    }
}
