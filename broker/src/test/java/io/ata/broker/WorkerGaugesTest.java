package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorkerGaugesTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final WorkerGauges gauges = new WorkerGauges(meters, Tags.of(BrokerMetrics.APPLICATION, "app"));

    private Gauge gauge(String name, String job, String worker) {
        return meters.find(name)
                .tags(BrokerMetrics.APPLICATION, "app", WorkerGauges.JOB, job, WorkerGauges.WORKER, worker)
                .gauge();
    }

    private static WorkerSummary worker(String id, boolean active, double mean, double bound, int thisRound) {
        return new WorkerSummary(id, active, 5, mean, 1.0, bound, thisRound);
    }

    @Test
    void activeWorkersHaveTheirMeanBoundTasksAndShareInSeconds() {
        gauges.update(
                "j", List.of(worker("a", true, 20, 12, 3), worker("b", true, 40, 30, 1), worker("c", false, 9, 9, 0)));

        assertEquals(0.020, gauge(WorkerGauges.MEAN, "j", "a").value(), 1e-12);
        assertEquals(0.012, gauge(WorkerGauges.LOWER_BOUND, "j", "a").value(), 1e-12);
        assertEquals(3, gauge(WorkerGauges.TASKS_ALLOCATED, "j", "a").value());
        assertEquals(0.75, gauge(WorkerGauges.ALLOCATION_SHARE, "j", "a").value(), 1e-12);
        assertEquals(0.25, gauge(WorkerGauges.ALLOCATION_SHARE, "j", "b").value(), 1e-12);
        assertNull(gauge(WorkerGauges.MEAN, "j", "c"), "an inactive worker has no gauges");

        gauges.update("j", List.of(worker("a", true, 22, 13, 4), worker("b", false, 40, 30, 0)));
        assertEquals(0.022, gauge(WorkerGauges.MEAN, "j", "a").value(), 1e-12);
        assertEquals(1.0, gauge(WorkerGauges.ALLOCATION_SHARE, "j", "a").value(), 1e-12);
        for (String name : List.of(
                WorkerGauges.MEAN,
                WorkerGauges.LOWER_BOUND,
                WorkerGauges.TASKS_ALLOCATED,
                WorkerGauges.ALLOCATION_SHARE)) {
            assertNull(gauge(name, "j", "b"), "a worker that left loses " + name);
        }
    }

    @Test
    void aJobThatLeavesLosesItsGaugesAndTheSeriesAreCapped() {
        gauges.update("j", List.of(worker("a", true, 20, 12, 3)));
        gauges.update("k", List.of(worker("a", true, 20, 12, 3)));
        gauges.remove(Set.of("j"));
        assertNull(gauge(WorkerGauges.MEAN, "j", "a"));
        assertEquals(0.020, gauge(WorkerGauges.MEAN, "k", "a").value(), 1e-12);

        List<WorkerSummary> many = java.util.stream.IntStream.range(0, WorkerGauges.MAX_SERIES + 10)
                .mapToObj(i -> worker("w" + i, true, 1, 1, 1))
                .toList();
        gauges.update("big", many);
        assertEquals(
                WorkerGauges.MAX_SERIES, meters.find(WorkerGauges.MEAN).gauges().size());

        gauges.removeAll();
        assertTrue(meters.find(WorkerGauges.MEAN).gauges().isEmpty());
    }
}
