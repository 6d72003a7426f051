package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.JobRuntime;
import io.ata.local.LocalDeployment;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Backup tasks, live: the fastest agent hangs in the middle of the job (its tasks never end,
 * while it keeps heartbeating and its group membership, as a GPU that hangs or a frozen process
 * would). Under {@code ata-auto} the trainer reports its assignment overdue, the broker sends
 * copies of the missing tasks to the other agents, the round closes within the bound, and from
 * then on the hung agent gets only probe tasks beyond the batch; every round's batch holds each
 * task once.
 */
@EndToEnd
class LiveBackupTest {
    private static final String JOB = "hung";
    private static final int BATCH = 6;
    private static final long ROUNDS = 100;
    private static final long HANG_AFTER = 60;
    private static final double FAST_MEAN_MS = 5;

    @RegisterExtension
    final EmbeddedFleet fleet = ChangingFleet.of(
            // ten minutes a task: never, here
            "backup.", ChangingFleet.FAST, new TaskTimeDistribution.Constant(600_000), HANG_AFTER);

    @Test
    void aHungAgentsTasksAreBackedUpAndTheJobGoesOn(LocalDeployment local) throws Exception {
        Trainer trainer = local.startTrainer(JOB, "ata-auto", BATCH, ROUNDS, RoundListener.NONE);
        assertTrue(
                trainer.awaitRounds(ROUNDS, Duration.ofSeconds(120)),
                "the job trains to its end although an agent hung in round " + (HANG_AFTER + 1));

        List<TaskAssignment> assignments = Allocations.of(local, JOB);
        List<TaskAssignment> copies =
                assignments.stream().filter(a -> !a.getBackupOf().isEmpty()).toList();
        assertTrue(
                copies.stream()
                        .anyMatch(a -> a.getRound() == HANG_AFTER + 1
                                && a.getBackupOf().equals("agent-1")),
                "agent-1's tasks of round " + (HANG_AFTER + 1) + " were backed up: " + copies);

        Map<Long, RoundEvent> closed = TopicContents.values(
                        local,
                        local.topics().rounds(),
                        e -> e.getJob().equals(JOB) && e.getType() == RoundEventType.CLOSED)
                .stream()
                .collect(Collectors.toMap(RoundEvent::getRound, e -> e, (a, b) -> a));
        for (long k = 1; k <= ROUNDS; k++) {
            List<String> accepted = closed.get(k).getTimings().stream()
                    .filter(t -> t.getStatus() == TimingStatus.COMPLETED)
                    .map(RoundTiming::getTaskId)
                    .toList();
            assertEquals(BATCH, accepted.size(), "round " + k + " keeps B results");
            Set<String> distinct = new HashSet<>(accepted);
            assertEquals(BATCH, distinct.size(), "round " + k + ": a task and its copy never both count: " + accepted);
        }

        double[] before = new double[20];
        for (int i = 0; i < 20; i++) {
            before[i] = closed.get(HANG_AFTER - 19 + i).getRoundTimeMs();
        }
        Arrays.sort(before);
        double usual = before[18]; // the 95th percentile of rounds 41-60
        double hungRound = closed.get(HANG_AFTER + 1).getRoundTimeMs();
        long copiesBefore =
                copies.stream().filter(a -> a.getRound() <= HANG_AFTER).count();
        int share = assignments.stream()
                .filter(a -> a.getRound() == HANG_AFTER + 1
                        && a.getWorkerId().equals("agent-1")
                        && a.getBackupOf().isEmpty())
                .mapToInt(a -> a.getTaskIds().size())
                .sum();
        double margin = trainer.metrics().deadlineMarginMs();
        System.out.printf( // the figures the comment below quotes
                "copies before the hang %d, share %d, delivery margin %.1f ms, usual %.1f ms, hung round %.1f ms,"
                        + " later max %.1f%n",
                copiesBefore,
                share,
                margin,
                usual,
                hungRound,
                java.util.stream.LongStream.rangeClosed(HANG_AFTER + 2, ROUNDS)
                        .mapToDouble(k -> closed.get(k).getRoundTimeMs())
                        .max()
                        .orElseThrow());
        // measured: 188 ms against a 95th percentile of 186 ms for rounds 41-60 (a share of 4 tasks),
        // the later rounds at most 116 ms; 6 copies sent in rounds 1-60 (false alarms, all harmless)
        assertTrue(margin > 0, "healthy results take some time beyond their compute to reach the trainer: " + margin);
        double bound = usual + 3 * FAST_MEAN_MS * share + 2 * (JobRuntime.DEADLINE_FLOOR_MS + margin);
        assertTrue(
                hungRound <= bound,
                "the round it hung in took " + hungRound + " ms; at most the usual " + usual + " ms plus three times"
                        + " its share's expected time plus the control overhead (deadline floor, delivery margin and"
                        + " delivery of the copies), " + bound + " ms");
        for (long k = HANG_AFTER + 3; k <= ROUNDS; k++) {
            long round = k;
            int own = assignments.stream()
                    .filter(a -> a.getRound() == round
                            && a.getWorkerId().equals("agent-1")
                            && a.getBackupOf().isEmpty())
                    .mapToInt(a -> a.getTaskIds().size())
                    .sum();
            assertTrue(own <= 1, "round " + k + ": the hung agent gets at most a probe, got " + own);
        }
    }
}
