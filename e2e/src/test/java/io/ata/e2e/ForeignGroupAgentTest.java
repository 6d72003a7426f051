package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import io.ata.workloads.time.TaskTimeDistribution;
import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An agent started in another consumer group than the fleet's reads every tasks partition beside
 * it, so tasks run twice: the broker reports the partitions two live agents claim, on the real
 * broker with real consumer groups.
 */
@EndToEnd
class ForeignGroupAgentTest {
    private static final String CLAIMED_TWICE = "ata.broker.task.partitions.claimed.twice";
    private static final int PARTITIONS = 2;

    private static final TaskTimeDistribution TIME = new TaskTimeDistribution.Constant(5);

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("foreign.", PARTITIONS)
            .settings(LocalDeployment.QUICK_LIVENESS.withFleetCheck(Duration.ofSeconds(1)))
            .agent("agent-1", TIME);

    @Test
    void theTasksPartitionsAnAgentOfAnotherGroupAlsoClaimsAreReported(LocalDeployment local)
            throws InterruptedException {
        assertEquals(0.0, claimedTwice(local), "one group: every partition has one owner");

        // in a group of its own it owns both partitions, which agent-1 owns in the fleet's group
        local.startAgent(local.agentConfig("stray")
                .groupId("another-group")
                .emulatedTime(TIME)
                .build());
        local.awaitFleet(Duration.ofSeconds(60));
        // two checks must find it, and the claimants' heartbeats between them
        await("the broker reports both partitions claimed twice")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> claimedTwice(local) == PARTITIONS);
    }

    private double claimedTwice(LocalDeployment local) {
        Gauge gauge = local.meters().find(CLAIMED_TWICE).gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }
}
