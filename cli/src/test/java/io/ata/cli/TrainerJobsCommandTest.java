package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.workloads.time.TaskTimeDistribution;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ata trainer --job a,b,c}: several jobs in one process, over one trainer host, each run to
 * its last round with its own transactions and its own group's committed offsets.
 */
@EndToEnd
class TrainerJobsCommandTest {
    private static final String PREFIX = "jobs.";
    /** A name may hold a '%': the lines that name their job must not read it as a format. */
    private static final List<String> JOBS = List.of("cli-a", "cli-b", "cli-c%d");

    private static final int ROUNDS = 4;

    private LocalDeployment local;

    @AfterEach
    void stop() {
        if (local != null) {
            local.close();
        }
    }

    @Test
    void threeJobsInOneTrainerEachRunToTheirLastRound() throws Exception {
        local = LocalDeployment.embedded(new Topics(PREFIX), LocalDeployment.QUICK_LIVENESS);
        local.startBroker();
        for (int i = 1; i <= 3; i++) {
            local.startAgent("agent-" + i, new TaskTimeDistribution.Constant(5));
        }
        RunningCommand trainer = RunningCommand.against(
                local,
                PREFIX,
                "trainer",
                "--job",
                String.join(",", JOBS),
                "--batch",
                "2",
                "--rounds",
                String.valueOf(ROUNDS),
                "--eval-every",
                "0",
                "--log-level",
                "warn");
        assertEquals(0, trainer.awaitExit(Duration.ofMinutes(3)), trainer.transcript());

        String out = trainer.out.toString();
        assertTrue(
                trainer.err.toString().contains("3 jobs in one trainer host: " + String.join(", ", JOBS)),
                trainer.transcript());
        for (String job : JOBS) {
            assertTrue(out.contains("job " + job + " round " + ROUNDS + ": objective"), out);
            assertTrue(out.contains("job " + job + " finished at round " + ROUNDS + ":"), out);
            assertTrue(out.contains("this trainer closed " + ROUNDS + " rounds"), out);
        }
        // each job's group holds its own offsets, committed with its rounds, and has no member:
        // the host read the results, not a consumer per job
        Topics topics = local.topics();
        try (Admin admin = local.kafka().admin()) {
            for (String job : JOBS) {
                String group = topics.trainerName(job);
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get();
                Set<String> read =
                        offsets.keySet().stream().map(TopicPartition::topic).collect(Collectors.toSet());
                assertEquals(Set.of(topics.gradients().name()), read, "job " + job + "'s offsets");
                assertTrue(
                        offsets.values().stream()
                                        .mapToLong(OffsetAndMetadata::offset)
                                        .sum()
                                >= 2L * ROUNDS,
                        "job " + job + " committed past its " + 2 * ROUNDS + " results: " + offsets);
                assertTrue(
                        admin.describeConsumerGroups(Set.of(group))
                                .all()
                                .get()
                                .get(group)
                                .members()
                                .isEmpty(),
                        "no member in group " + group);
            }
        }
    }
}
