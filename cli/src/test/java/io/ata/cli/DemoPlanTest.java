package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.bench.demo.DemoPlan;
import io.ata.broker.BrokerSettings;
import io.ata.workloads.time.TimeModels;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoPlanTest {
    private static DemoPlan plan(int agents, List<String> policies, boolean existing) {
        return new DemoPlan(
                agents,
                8,
                150,
                30,
                policies,
                "linear",
                0.2,
                b -> b,
                5,
                0,
                Path.of("out/demo"),
                "20260101-120000",
                existing,
                null);
    }

    @Test
    void agentIdsSortInFleetOrder() {
        assertEquals(
                List.of("agent-1", "agent-2"), plan(2, List.of("gta"), false).agentIds());
        List<String> twelve = plan(12, List.of("gta"), false).agentIds();
        assertEquals("agent-01", twelve.get(0));
        assertEquals("agent-12", twelve.get(11));
    }

    @Test
    void jobNamesCarryTheRunOnASharedCluster() {
        assertEquals("demo-ata-hedge-2", plan(2, List.of("ata-hedge:2"), false).jobName("ata-hedge:2"));
        assertEquals("demo-20260101-120000-gta", plan(2, List.of("gta"), true).jobName("gta"));
        assertEquals("timings-demo-gta.csv", DemoPlan.timingsFileName("demo-gta"));
    }

    @Test
    void oraclePoliciesGetTheEmulatedMeans() {
        DemoPlan plan = plan(3, List.of("fta", "gta"), false);
        BrokerSettings settings = plan.brokerSettings(TimeModels.byName("linear", 3));
        // linear model: worker j takes 29 j + Exp(29 j) ms, so a mean of 58 j, times the scale 0.2
        assertEquals(58 * 0.2, settings.knownMeans().get("agent-1"), 1e-9);
        assertEquals(3 * 58 * 0.2, settings.knownMeans().get("agent-3"), 1e-9);
        assertTrue(Double.isNaN(settings.alpha()), "no ata policy: no constants measured");
        assertTrue(plan(3, List.of("gta"), false)
                .brokerSettings(TimeModels.byName("linear", 3))
                .knownMeans()
                .isEmpty());
    }
}
