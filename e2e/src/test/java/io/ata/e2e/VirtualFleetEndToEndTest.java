package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.bench.fleet.FleetCounts;
import io.ata.bench.fleet.VirtualFleet;
import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.Trainer;
import io.ata.workeragent.AssignmentListener;
import io.ata.workloads.time.TimeSchedule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The virtual fleet drives the real broker and real trainers: 16 virtual agents, 4 to a Kafka
 * client, two jobs of {@code uta} with {@code B} = 16 for 20 rounds, task times of about 10 ms and
 * one agent that leaves after round 8. The broker must see 16 distinct workers with partitions no
 * two share, every round must close exactly once with {@code B} distinct tasks (the broker's
 * accounting agreeing), every result must come from a fleet worker and name the worker its task
 * was assigned to, and nothing may be dead-lettered.
 *
 * <p>Run three times: rounds planned as they open, and planned a round ahead (pipelined allocation),
 * where round {@code k+1}'s assignments reach the agents one model version ahead while round
 * {@code k} is open. There the agents must park some of them and run the rest of their queues (a
 * wait for the version would hold back round {@code k}'s backup copies and end in a dead letter).
 * The third run has the 4 agents of each client share its partitions, as the workers of a
 * multi-device agent do: they must name their client's consumer, each run the tasks planned for it,
 * and the broker must neither see a partition claimed twice nor grow the topic.
 */
@EndToEnd
@ParameterizedClass(name = "pipelined allocation {0}, {1} agent(s) per partition")
@CsvSource({"false, 1", "true, 1", "true, 4"})
class VirtualFleetEndToEndTest {
    private static final int AGENTS = 16;
    private static final int ROUNDS = 20;
    private static final long LEAVES_AFTER = 8;
    private static final List<String> JOBS = List.of("fleet-a", "fleet-b");
    /** The broker's look at the fleet's partitions: every second, not every five, so the test need not wait long. */
    private static final Duration FLEET_CHECK = Duration.ofSeconds(1);

    @RegisterExtension
    final EmbeddedFleet deployment;

    private final boolean pipelined;
    private final int agentsPerPartition;
    private VirtualFleet fleet;

    VirtualFleetEndToEndTest(boolean pipelined, int agentsPerPartition) {
        this.pipelined = pipelined;
        this.agentsPerPartition = agentsPerPartition;
        // shared: fewer partitions than workers, 2 per client, dealt to its group of 4
        this.deployment = EmbeddedFleet.of("vfleet.", agentsPerPartition == 1 ? 32 : 8)
                .settings(BrokerSettings.defaults()
                        .withPipelinedAllocation(pipelined)
                        .withFleetCheck(FLEET_CHECK));
    }

    @BeforeEach
    void start(LocalDeployment local) {
        List<TimeSchedule> schedules = new ArrayList<>();
        for (int i = 1; i < AGENTS; i++) {
            schedules.add(TimeSchedule.constant(LocalDeployment.aboutMs(10)));
        }
        // the last agent takes part through round 8, then leaves (LEAVING, its partitions to the others)
        schedules.add(new TimeSchedule(LocalDeployment.aboutMs(10), List.of(), 0, LEAVES_AFTER));
        fleet = new VirtualFleet(
                local.clientProperties(),
                local.topics(),
                local.registry(),
                VirtualFleet.Settings.of(AGENTS)
                        .withAgentsPerClient(4)
                        .withAgentsPerPartition(agentsPerPartition)
                        .withSchedules(schedules, 1.0),
                AssignmentListener.NONE);
        fleet.start();
    }

    @AfterEach
    void stop() {
        if (fleet != null) {
            fleet.close(); // before the deployment it runs on
        }
    }

    @Test
    void drivesTheBrokerAndTrainersAsDistinctWorkers(LocalDeployment local) throws Exception {
        fleet.awaitMembers(w -> local.broker().membership().get(w), Duration.ofSeconds(120));
        // the clients join one after another: the last rebalance's partition lists settle within a heartbeat
        await("distinct members")
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertDistinctMembers(local, fleet.workerIds()));
        long settled = System.nanoTime();

        List<Trainer> trainers = new ArrayList<>();
        for (String job : JOBS) {
            trainers.add(local.startTrainer(
                    local.trainerConfig(job, "uta", AGENTS, ROUNDS).build()));
        }
        for (Trainer t : trainers) {
            assertTrue(
                    t.awaitRounds(ROUNDS, Duration.ofMinutes(5)),
                    "job " + t.config().job() + " closed its rounds");
        }
        for (String job : JOBS) {
            JobAccounting.assertExact(local, job, AGENTS, ROUNDS);
        }
        // each job breaks ties with a seed of its own: with one for all, a B below the fleet's size
        // gave every job's round to the same worker (a job's first OPENED carries it; a re-drive's does not)
        Map<String, Long> seeds = new HashMap<>();
        for (RoundEvent e :
                TopicContents.values(local, local.topics().rounds(), e -> e.getType() == RoundEventType.OPENED)) {
            seeds.putIfAbsent(e.getJob(), e.getSeed());
        }
        assertEquals(Set.copyOf(JOBS), seeds.keySet(), "every job opened rounds");
        assertEquals(JOBS.size(), Set.copyOf(seeds.values()).size(), "each job its own seed: " + seeds);

        // every result: from a worker of the fleet, naming a worker its task was assigned to
        Map<String, Set<String>> assignedTo = new HashMap<>();
        for (TaskAssignment a : TopicContents.values(local, local.topics().tasks())) {
            for (String task : a.getTaskIds()) {
                assignedTo.computeIfAbsent(task, k -> new HashSet<>()).add(a.getWorkerId());
            }
        }
        Set<String> fleetIds = new HashSet<>(fleet.workerIds());
        Set<String> resultWorkers = new TreeSet<>();
        for (TaskResult r : TopicContents.values(local, local.topics().gradients())) {
            assertTrue(fleetIds.contains(r.getWorkerId()), "result from a fleet worker, not " + r.getWorkerId());
            assertTrue(
                    assignedTo.getOrDefault(r.getTaskId(), Set.of()).contains(r.getAssignedWorkerId()),
                    "result of " + r.getTaskId() + " names a worker it was assigned to, not "
                            + r.getAssignedWorkerId());
            if (r.getStatus() == TimingStatus.COMPLETED) {
                resultWorkers.add(r.getWorkerId());
            }
        }
        assertEquals(new TreeSet<>(fleetIds), resultWorkers, "every virtual agent ran tasks under its own id");

        // the leaver said so, and the broker holds it as LEAVING
        String leaver = fleet.workerIds().get(AGENTS - 1);
        assertEquals(
                io.ata.schemas.WorkerStatus.LEAVING,
                local.broker().membership().get(leaver).getStatus(),
                "the agent whose schedule ends after round " + LEAVES_AFTER + " left");

        // every heartbeat of a sharing fleet named its reader, from the first one on (an unnamed
        // worker without partitions yet is a reader of its own, and the broker would grow the topic)
        for (WorkerHeartbeat h : TopicContents.values(local, local.topics().workers())) {
            if (h.getStatus() == io.ata.schemas.WorkerStatus.ALIVE) {
                assertEquals(agentsPerPartition > 1, !h.getTaskConsumer().isEmpty(), h.toString());
            }
        }
        // a claim is reported at a later check than the first that finds it, once each claimant has
        // heartbeated again (every second): let five checks pass since the members settled
        long sinceSettledMs = (System.nanoTime() - settled) / 1_000_000;
        Thread.sleep(Math.max(0, FLEET_CHECK.multipliedBy(5).toMillis() - sinceSettledMs));
        assertEquals(0, local.broker().taskPartitionsClaimedTwice(), "no partition claimed twice");
        try (Admin admin = Admin.create(local.clientProperties())) {
            String tasks = local.topics().tasks().name();
            assertEquals(
                    agentsPerPartition == 1 ? 32 : 8,
                    admin.describeTopics(List.of(tasks))
                            .allTopicNames()
                            .get()
                            .get(tasks)
                            .partitions()
                            .size(),
                    "the tasks topic kept its partitions");
        }

        List<DeadLetter> letters = TopicContents.values(local, local.topics().deadLetters());
        assertEquals(List.of(), letters, "no dead letters");
        FleetCounts.Snapshot counts = fleet.counts();
        assertEquals(0, counts.failedTransactions(), "no failed transaction");
        assertEquals(0, counts.deadLetters(), "the fleet refused nothing");
        assertEquals(1, counts.leaves(), "one agent left");
        assertTrue(fleet.failure().isEmpty(), "no client failed: " + fleet.failure());
        RoundsPlannedAhead.assertAsSet(local, BrokerSettings.defaults().withPipelinedAllocation(pipelined));
        if (pipelined) {
            assertTrue(counts.parked() > 0, "assignments one version ahead were parked: " + counts);
        }
    }

    /**
     * The broker sees every worker id, each with partitions, and no partition in the lists of two
     * workers of different consumers; with agents sharing partitions, each partition in as many
     * lists as share it, all naming one consumer.
     */
    private void assertDistinctMembers(LocalDeployment local, List<String> workerIds) {
        assertEquals(AGENTS, new HashSet<>(workerIds).size(), "distinct worker ids");
        Map<Integer, Set<String>> claimedBy = new HashMap<>();
        Map<Integer, Set<String>> consumers = new HashMap<>();
        for (String id : workerIds) {
            WorkerHeartbeat h = local.broker().membership().get(id);
            assertTrue(h != null && !h.getPartitions().isEmpty(), id + " is a member owning partitions");
            assertEquals(
                    agentsPerPartition > 1,
                    !h.getTaskConsumer().isEmpty(),
                    id + " names the consumer that reads its partitions when it shares them");
            for (int p : h.getPartitions()) {
                claimedBy.computeIfAbsent(p, k -> new TreeSet<>()).add(id);
                consumers.computeIfAbsent(p, k -> new HashSet<>()).add(h.getTaskConsumer());
            }
        }
        claimedBy.forEach((p, workers) -> {
            assertEquals(1, consumers.get(p).size(), "partition " + p + " read by one reader: " + workers);
            assertEquals(agentsPerPartition, workers.size(), "partition " + p + " announced by " + workers);
        });
    }
}
