package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.JobState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 9: parts killed again and again during one quadratic job, in turn an agent, the trainer and
 * the broker, and the job's accounting stays exact: every round closes exactly once with exactly
 * {@code B} distinct tasks of that round, no task id is counted twice, and the broker's per-worker
 * task counts are exactly the COMPLETED and LATE timings of the CLOSED events (as it folds them).
 *
 * <p>Kills are in-process, as {@link FailureRecoveryTest}'s: an agent and the trainer stop
 * abruptly (no more heartbeats or commits; the trainer's open transaction is aborted), the broker
 * stops and restarts from its state directory. A killed agent is replaced by a new one, so the
 * fleet keeps its size and the dead one's tasks are reallocated after its liveness timeout.
 */
@EndToEnd
class ChaosTest {
    private static final int BATCH = 6;
    private static final long ROUNDS = 45;
    /** The parts killed in turn, one every {@link #KILL_EVERY} rounds: seven kills in all. */
    private static final List<Part> KILLS =
            List.of(Part.AGENT, Part.TRAINER, Part.BROKER, Part.AGENT, Part.TRAINER, Part.BROKER, Part.AGENT);

    private static final long KILL_EVERY = 5;
    private static final double[] AGENT_MEAN_MS = {4, 6, 8, 12};

    private enum Part {
        AGENT,
        TRAINER,
        BROKER
    }

    private LocalDeployment local;

    @BeforeEach
    void start() throws Exception {
        local = LocalDeployment.embedded(new Topics("chaos.").withTaskPartitions(8), LocalDeployment.QUICK_LIVENESS);
        local.startBroker();
    }

    @AfterEach
    void stop() {
        local.close();
    }

    @Test
    void killingAgentsTheTrainerAndTheBrokerInTurnLosesNoRoundAndCountsNoTaskTwice() throws Exception {
        local.startFleet(Duration.ofSeconds(60), AGENT_MEAN_MS);
        Deque<String> liveAgents = new ArrayDeque<>(List.of("agent-1", "agent-2", "agent-3", "agent-4"));
        String job = "chaos";
        TrainerConfig config =
                local.trainerConfig(job, "ata-auto", BATCH, ROUNDS).build();
        Trainer trainer = local.startTrainer(config);

        int nextAgent = AGENT_MEAN_MS.length + 1;
        long round = 0;
        for (Part part : KILLS) {
            round += KILL_EVERY;
            awaitRound(trainer, round);
            switch (part) {
                case AGENT -> {
                    String victim = liveAgents.removeFirst();
                    local.killAgent(victim);
                    double meanMs = AGENT_MEAN_MS[(nextAgent - 1) % AGENT_MEAN_MS.length];
                    String replacement = "agent-" + nextAgent++;
                    local.startAgent(replacement, LocalDeployment.aboutMs(meanMs));
                    liveAgents.addLast(replacement);
                }
                case TRAINER -> {
                    trainer.kill();
                    trainer = local.startTrainer(config);
                }
                case BROKER -> {
                    local.stopBroker();
                    local.startBroker(); // same application id and state directory: restores and resumes
                }
            }
        }
        awaitRound(trainer, ROUNDS);

        List<RoundEvent> closes = TopicContents.values(
                local, local.topics().rounds(), e -> e.getJob().equals(job) && e.getType() == RoundEventType.CLOSED);
        Map<Long, Integer> closesPerRound = new TreeMap<>();
        Set<String> counted = new HashSet<>();
        Map<String, Long> countedPerWorker = new HashMap<>();
        List<String> countedTwice = new ArrayList<>();
        for (RoundEvent e : closes) {
            closesPerRound.merge(e.getRound(), 1, Integer::sum);
            Set<String> completed = new HashSet<>();
            for (RoundTiming t : e.getTimings()) {
                if (t.getStatus() == TimingStatus.COMPLETED) {
                    assertTrue(
                            completed.add(t.getTaskId()),
                            "round " + e.getRound() + " completes " + t.getTaskId() + " once");
                    assertTrue(
                            t.getTaskId().startsWith(job + "/" + e.getRound() + "/"),
                            "round " + e.getRound() + " completes its own task, not " + t.getTaskId());
                }
                if (t.getStatus() != TimingStatus.CANCELLED) { // COMPLETED and LATE: what the broker counts
                    if (!counted.add(t.getTaskId())) {
                        countedTwice.add(t.getTaskId());
                    }
                    countedPerWorker.merge(t.getWorkerId(), 1L, Long::sum);
                }
            }
            assertEquals(BATCH, completed.size(), "round " + e.getRound() + " has exactly B distinct tasks");
        }
        for (long k = 1; k <= ROUNDS; k++) {
            assertEquals(1, closesPerRound.getOrDefault(k, 0), "round " + k + " closed exactly once");
        }
        assertEquals(ROUNDS, closesPerRound.size(), "no round beyond the job's: " + closesPerRound.keySet());
        assertEquals(List.of(), countedTwice, "no task id counted twice");

        JobState state = await("the broker to fold round " + ROUNDS)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> local.broker().jobs().get(job), s -> s != null && s.getLastClosedRound() >= ROUNDS);
        Map<String, Long> brokerCounts = new TreeMap<>();
        for (int i = 0; i < state.getWorkerIds().size(); i++) {
            if (state.getCount().get(i) > 0) {
                brokerCounts.put(state.getWorkerIds().get(i), state.getCount().get(i));
            }
        }
        assertEquals(
                new TreeMap<>(countedPerWorker),
                brokerCounts,
                "the broker's per-worker task counts are the CLOSED events' COMPLETED and LATE timings");
    }

    private void awaitRound(Trainer trainer, long round) throws InterruptedException {
        if (!trainer.awaitRounds(round, Duration.ofSeconds(60))) {
            throw new AssertionError("stalled before round " + round + " at "
                    + trainer.metrics().lastClosedRound()
                    + "; trainer " + trainer.failure() + "; broker "
                    + (local.broker() == null ? "stopped" : local.broker().state()));
        }
    }
}
