package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.TaskAssignment;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, live, the other direction from {@link LiveSlowdownTest}: the slowest agent follows a
 * schedule that makes it ten times faster after round 100. With drift handling, {@code ata-auto}
 * gives it more tasks within 50 rounds: its tasks per round in rounds 141-150 are clearly above
 * what it got in rounds 81-100.
 */
@EndToEnd
class LiveSpeedupTest {
    private static final String JOB = "sped";
    private static final int BATCH = 6;
    private static final long ROUNDS = 150;
    private static final long CHANGE_AFTER = 100;

    private LocalDeployment local;

    @BeforeEach
    void start() throws Exception {
        local = ChangingFleet.start("speedup.", ChangingFleet.SLOW, ChangingFleet.FAST, CHANGE_AFTER);
    }

    @AfterEach
    void stop() {
        local.close();
    }

    @Test
    void allocationMovesToAWorkerThatSpeedsUpWithin50Rounds() throws Exception {
        Trainer trainer = local.startTrainer(JOB, "ata-auto", BATCH, ROUNDS, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(ROUNDS, Duration.ofSeconds(180)), "the job trains to its end");

        List<TaskAssignment> assignments = Allocations.of(local, JOB);
        double before = Allocations.tasksPerRound(assignments, "agent-1", 81, 100);
        double after = Allocations.tasksPerRound(assignments, "agent-1", 141, 150);
        String profile = "; agent-1's tasks per round by tens of rounds: "
                + Allocations.profile(assignments, "agent-1", ROUNDS, 10);
        // Of the 6 tasks, FTA gives the agent at most 1 at 50 ms against 15 ms (0/3/3 takes about
        // 45 ms, 1/3/2 about 50 ms) and 4 at 5 ms (4/1/1 takes about 20 ms, 3/2/1 and 5/1/0 more).
        assertTrue(before <= 1.5, "the slow agent got little before the change: " + before + profile);
        // measured: 1.0 -> 4.0 with drift handling (1 a round up to round 103, then 6, 5, and FTA's 4
        // from round 106 on, in both runs); 1.0 -> 1.0 with ata-auto-no-drift, whose statistics
        // still hold 100 rounds of slow durations (and it never moved in rounds 101-150)
        assertTrue(
                after >= 3 * before,
                "after the change it gets three times as many: " + before + " -> " + after + profile);
    }
}
