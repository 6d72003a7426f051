package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.Records;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Tasks partitions claimed by two live workers: reported when it lasts, not for a rebalance's moment. */
class TaskPartitionClaimsTest {
    private static final BrokerSettings SETTINGS = BrokerSettings.defaults();
    private static final long NOW = 1_000_000;

    private static WorkerHeartbeat heartbeat(String worker, List<Integer> partitions, long atMs) {
        return Records.heartbeat(worker, atMs, partitions).build();
    }

    @Test
    void aPartitionTwoLiveWorkersClaimIsADoubleClaim() {
        List<WorkerHeartbeat> fleet = List.of(
                heartbeat("w1", List.of(0, 1, 2, 3), NOW), // in a group of its own: it reads every partition
                heartbeat("w2", List.of(0, 1), NOW),
                heartbeat("w3", List.of(2, 3), NOW));
        assertEquals(
                Map.of(0, Set.of("w1", "w2"), 1, Set.of("w1", "w2"), 2, Set.of("w1", "w3"), 3, Set.of("w1", "w3")),
                TaskPartitionClaims.doubleClaims(fleet, SETTINGS, NOW));
        assertTrue(TaskPartitionClaims.doubleClaims(Records.aliveWorkers(4, NOW), SETTINGS, NOW)
                .isEmpty());
        List<WorkerHeartbeat> withADeadOne = List.of(
                heartbeat("w1", List.of(0), NOW - SETTINGS.livenessTimeoutMs() - 1), heartbeat("w2", List.of(0), NOW));
        assertTrue(
                TaskPartitionClaims.doubleClaims(withADeadOne, SETTINGS, NOW).isEmpty(),
                "a dead worker's last claim does not count");
    }

    @Test
    void workersOfOneConsumerShareItsPartitionsWithoutADoubleClaim() {
        List<WorkerHeartbeat> fleet = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            fleet.add(Records.heartbeat("gpu-" + w, NOW, List.of(0, 1))
                    .setTaskConsumer("node-a")
                    .build());
        }
        assertTrue(TaskPartitionClaims.doubleClaims(fleet, SETTINGS, NOW).isEmpty(), "one multi-device agent");

        fleet.add(Records.heartbeat("gpu-9", NOW, List.of(1))
                .setTaskConsumer("node-b")
                .build());
        fleet.add(heartbeat("cpu-0", List.of(0), NOW)); // a consumer of its own
        assertEquals(
                Map.of(
                        0, Set.of("gpu-0", "gpu-1", "gpu-2", "gpu-3", "cpu-0"),
                        1, Set.of("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-9")),
                TaskPartitionClaims.doubleClaims(fleet, SETTINGS, NOW),
                "another consumer on the same partitions: two groups read them");
    }

    @Test
    void onlyAClaimEveryClaimantAnnouncesAgainIsCountedAndItClears() {
        List<WorkerHeartbeat> fleet = new ArrayList<>(Records.aliveWorkers(2, NOW));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (TaskPartitionClaims claims = new TaskPartitionClaims(SETTINGS, meters, "app")) {
            claims.check(fleet, NOW);
            assertEquals(0, claims.claimedTwice());

            fleet.add(heartbeat("w9", List.of(0), NOW)); // a rebalance's moment, or another group
            claims.check(fleet, NOW);
            assertEquals(0, claims.claimedTwice(), "seen once: maybe a rebalance the next heartbeat corrects");
            claims.check(fleet, NOW + 1_000);
            assertEquals(0, claims.claimedTwice(), "no claimant has announced it again");
            List<WorkerHeartbeat> again = new ArrayList<>(Records.aliveWorkers(2, NOW + 1_000));
            again.add(heartbeat("w9", List.of(0), NOW + 1_000));
            fleet = again;
            claims.check(fleet, NOW + 1_000);
            assertEquals(1, claims.claimedTwice(), "both announced it again: it lasts");
            assertEquals(
                    1.0, meters.get(TaskPartitionClaims.CLAIMED_TWICE).gauge().value());

            fleet.remove(fleet.size() - 1);
            claims.check(fleet, NOW);
            assertEquals(0, claims.claimedTwice(), "gone");
        }
        assertTrue(meters.find(TaskPartitionClaims.CLAIMED_TWICE).gauges().isEmpty(), "closed: the gauge is removed");
    }

    @Test
    void aRebalancesLeftoverIsNotReportedWhileItsOldOwnerHasNotHeartbeatAgain() {
        // thousands of agents heartbeating seconds apart: the partition moved from w1 to w2, whose
        // heartbeat came first; w1 still claims it by its last heartbeat over several checks
        try (TaskPartitionClaims claims = new TaskPartitionClaims(SETTINGS, new SimpleMeterRegistry(), "app")) {
            WorkerHeartbeat oldOwner = heartbeat("w1", List.of(0, 1), NOW);
            for (long t = 0; t <= 3_000; t += 1_000) {
                claims.check(List.of(oldOwner, heartbeat("w2", List.of(0), NOW + 500 + t)), NOW + t);
                assertEquals(0, claims.claimedTwice(), "at +" + t + " ms");
            }
            claims.check(
                    List.of(heartbeat("w1", List.of(1), NOW + 4_000), heartbeat("w2", List.of(0), NOW + 4_000)),
                    NOW + 4_000);
            assertEquals(0, claims.claimedTwice(), "corrected by w1's next heartbeat");
        }
    }

    @Test
    void aStoreNotReadyIsNoClaim() {
        try (TaskPartitionClaims claims = new TaskPartitionClaims(SETTINGS, new SimpleMeterRegistry(), "app")) {
            TaskPartitionChecks checks = new TaskPartitionChecks(
                    () -> {
                        throw new IllegalStateException("restoring");
                    },
                    () -> NOW,
                    List.of(claims));
            checks.run();
            checks.run();
            assertEquals(0, claims.claimedTwice());
        }
    }

    @Test
    void theChecksReadTheMembershipOnceForAllAndAFailingCheckSkipsOnlyItself() {
        int[] reads = {0};
        try (TaskPartitionClaims claims = new TaskPartitionClaims(SETTINGS, new SimpleMeterRegistry(), "app")) {
            TaskPartitionChecks checks = new TaskPartitionChecks(
                    () -> {
                        reads[0]++;
                        // each read: every worker's newer heartbeat, w9 in a group of its own
                        List<WorkerHeartbeat> fleet = new ArrayList<>(Records.aliveWorkers(2, NOW + reads[0]));
                        fleet.add(heartbeat("w9", List.of(0), NOW + reads[0]));
                        return fleet;
                    },
                    () -> NOW,
                    List.of(
                            (heartbeats, now) -> {
                                throw new IllegalStateException("the cluster is unreachable");
                            },
                            claims));
            checks.run();
            checks.run();
            assertEquals(2, reads[0], "one read of the membership per run");
            assertEquals(1, claims.claimedTwice(), "the claims were checked after the failing check");
        }
    }
}
