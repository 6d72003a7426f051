package io.ata.e2e;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Parts killed again and again during one quadratic job, in turn an agent, the trainer and
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
    /** How long a round may take to close before the test fails. */
    private static final Duration ROUND_WAIT = Duration.ofSeconds(60);

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

    @RegisterExtension
    final EmbeddedFleet fleet;

    ChaosTest() {
        fleet = EmbeddedFleet.of("chaos.", 8).settings(brokerSettings()).checkingAllocation();
    }

    /** The broker's settings: {@link ChaosAtOpenTest} runs the same kills without pipelined allocation. */
    BrokerSettings brokerSettings() {
        return LocalDeployment.QUICK_LIVENESS;
    }

    /** Starts the job's trainer: {@link ChaosHostedTrainerTest} starts it in the deployment's trainer host. */
    Trainer startTrainer(LocalDeployment local, TrainerConfig config) {
        return local.startTrainer(config);
    }

    @Test
    void killingAgentsTheTrainerAndTheBrokerInTurnLosesNoRoundAndCountsNoTaskTwice(LocalDeployment local)
            throws Exception {
        local.startFleet(Duration.ofSeconds(60), AGENT_MEAN_MS);
        Deque<String> liveAgents = new ArrayDeque<>(List.of("agent-1", "agent-2", "agent-3", "agent-4"));
        String job = "chaos";
        TrainerConfig config =
                local.trainerConfig(job, "ata-auto", BATCH, ROUNDS).build();
        Trainer trainer = startTrainer(local, config);

        int nextAgent = AGENT_MEAN_MS.length + 1;
        long round = 0;
        for (Part part : KILLS) {
            round += KILL_EVERY;
            awaitRound(local, trainer, round);
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
                    trainer = startTrainer(local, config);
                }
                case BROKER -> {
                    local.stopBroker();
                    local.startBroker(); // same application id and state directory: restores and resumes
                }
            }
        }
        awaitRound(local, trainer, ROUNDS);

        JobAccounting.assertExact(local, job, BATCH, ROUNDS);
    }

    /** Waits for {@code trainer}, the job's current one (the test replaces it). */
    private void awaitRound(LocalDeployment local, Trainer trainer, long round) {
        TrainerRounds.awaitRound(
                trainer,
                round,
                ROUND_WAIT,
                () -> "trainer " + trainer.failure() + "; broker "
                        + (local.broker() == null ? "stopped" : local.broker().state()));
    }
}
