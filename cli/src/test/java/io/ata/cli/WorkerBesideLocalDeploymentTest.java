package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.workloads.time.TaskTimeDistribution;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The trap this guards against: a user adds an {@code ata worker}, without {@code --group-id},
 * to a deployment that {@link LocalDeployment} runs (as {@code ata demo} does) with a prefix of
 * its own. Were its default group another than the deployment's agents', it would read every
 * tasks partition beside them and run their tasks twice. Both follow one rule,
 * {@link Topics#workerGroup()}: on the real Kafka, the process's agent and the deployment's share
 * the group and split its partitions.
 */
@EndToEnd
class WorkerBesideLocalDeploymentTest {
    private static final String PREFIX = "beside.";
    private static final int PARTITIONS = 2;

    private LocalDeployment local;
    private RunningCommand worker;

    @AfterEach
    void stop() throws InterruptedException {
        if (worker != null) {
            worker.stop();
        }
        if (local != null) {
            local.close();
        }
    }

    @Test
    void anAtaWorkerWithoutGroupIdJoinsTheDeploymentsAgents() throws Exception {
        local = LocalDeployment.embedded(
                new Topics(PREFIX).withTaskPartitions(PARTITIONS), LocalDeployment.QUICK_LIVENESS);
        String group = local.agentConfig("agent-1").build().groupId();
        assertEquals(PREFIX + "workers", group, "the deployment's agents' group");
        local.startAgent("agent-1", new TaskTimeDistribution.Constant(5));
        Awaitility.await("agent-1 owns every partition")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> owners(group).getOrDefault("agent-1", Set.of()).size() == PARTITIONS);

        worker = RunningCommand.against(
                local,
                PREFIX,
                "worker",
                "--worker-id",
                "cli-agent",
                "--heartbeat-interval",
                "250ms",
                "--log-level",
                "warn");
        // the process joins the deployment's group, where the partitions are split between the two
        Awaitility.await("the process's agent takes a partition in " + group)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .failFast("ata worker stopped", () -> !worker.isRunning())
                .until(() -> owners(group).keySet().equals(Set.of("agent-1", "cli-agent")));
        Map<String, Set<Integer>> owners = owners(group);
        assertEquals(1, owners.get("agent-1").size(), owners + "\n" + worker.transcript());
        assertEquals(1, owners.get("cli-agent").size(), owners + "\n" + worker.transcript());

        // and no other group reads the tasks topic
        try (Admin admin = local.kafka().admin()) {
            Set<String> groups = admin.listConsumerGroups().all().get().stream()
                    .map(g -> g.groupId())
                    .collect(Collectors.toCollection(TreeSet::new));
            for (String other : groups) {
                if (!other.equals(group)) {
                    assertEquals(Map.of(), owners(admin, other), "group " + other + " reads no tasks partition");
                }
            }
        }
    }

    /** The tasks partitions each member of {@code group} owns, by worker id (its client id's prefix). */
    private Map<String, Set<Integer>> owners(String group) throws ExecutionException, InterruptedException {
        try (Admin admin = local.kafka().admin()) {
            return owners(admin, group);
        }
    }

    private Map<String, Set<Integer>> owners(Admin admin, String group)
            throws ExecutionException, InterruptedException {
        ConsumerGroupDescription d;
        try {
            d = admin.describeConsumerGroups(Set.of(group)).all().get().get(group);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Map.of(); // not formed yet: nobody owns anything
            }
            throw e;
        }
        Map<String, Set<Integer>> owners = new TreeMap<>();
        for (MemberDescription m : d.members()) {
            for (TopicPartition p : m.assignment().topicPartitions()) {
                if (p.topic().equals(local.topics().tasks().name())) {
                    owners.computeIfAbsent(workerId(m), k -> new TreeSet<>()).add(p.partition());
                }
            }
        }
        return owners;
    }

    /** The agent's worker id, from its static member id {@code <prefix>agent-<worker id>}. */
    private String workerId(MemberDescription m) {
        String prefix = local.topics().agentTransactionalIdPrefix();
        String id = m.groupInstanceId().orElseThrow(() -> new AssertionError("not a static member: " + m));
        assertTrue(id.startsWith(prefix), id + " is not named " + prefix + "<worker id>");
        return id.substring(prefix.length());
    }
}
