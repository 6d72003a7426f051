package io.ata.e2e;

import static io.ata.e2e.TrainerRounds.awaitRound;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerHost;
import io.micrometer.core.instrument.FunctionCounter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Several jobs' trainers over one trainer host's reader of {@code gradients}: each job trains to
 * its end with exact accounting, while one trainer is killed mid-job and its successor (in the
 * same host) reads the open round again from its group's committed offsets, behind the host's
 * reader.
 */
@EndToEnd
class TrainerHostTest {
    private static final Duration ROUND_WAIT = Duration.ofSeconds(90);
    private static final int BATCH = 4;
    private static final int ROUNDS = 40;

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("host.", 6).checkingAllocation();

    @Test
    void jobsOfOneHostTrainExactlyOnceThroughAKilledTrainer(LocalDeployment local) throws Exception {
        local.startFleet(Duration.ofSeconds(60), 3, 5, 8, 12, 20, 30);
        List<String> jobs = List.of("hosted-a", "hosted-b", "hosted-c");
        List<Trainer> trainers = new ArrayList<>();
        for (String job : jobs) {
            trainers.add(local.startHostedTrainer(
                    local.trainerConfig(job, "ata-auto", BATCH, ROUNDS).build()));
        }
        Trainer killed = trainers.get(1);
        awaitRound(killed, 12, ROUND_WAIT);
        killed.kill();
        long killedAt = killed.metrics().lastClosedRound();
        // the others move on while the job has no trainer: the host reads on, past its open round
        awaitRound(trainers.get(0), Math.min(ROUNDS, 20), ROUND_WAIT);
        Trainer successor = local.startHostedTrainer(
                local.trainerConfig(jobs.get(1), "ata-auto", BATCH, ROUNDS).build());
        trainers.set(1, successor);
        for (Trainer t : trainers) {
            awaitRound(t, ROUNDS, ROUND_WAIT);
            assertTrue(t.failure().isEmpty(), "failed: " + t.failure());
        }
        assertTrue(killedAt >= 12 && killedAt < ROUNDS, "killed mid-job, at round " + killedAt);
        for (String job : jobs) {
            JobAccounting.assertExact(local, job, BATCH, ROUNDS);
        }
        double handed = FunctionCounter.class
                .cast(local.meters()
                        .get(TrainerHost.RECORDS)
                        .tag("outcome", "handed")
                        .meter())
                .count();
        // the jobs never killed read every result of theirs through the host (the successor read
        // some of its job's again itself, and its job's records went to no one while it was down)
        assertTrue(handed >= (jobs.size() - 1) * BATCH * (double) ROUNDS, "records handed to the jobs: " + handed);
        // a job's trainer that ended leaves the host
        await("the trainers to end")
                .atMost(ROUND_WAIT)
                .until(() -> trainers.stream().noneMatch(Trainer::isRunning));
        assertEquals(0.0, local.meters().get(TrainerHost.JOBS).gauge().value(), "jobs attached");
    }
}
