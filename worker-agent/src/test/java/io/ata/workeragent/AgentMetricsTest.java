package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The agent's meters, read back from the registry they are registered in. */
class AgentMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double count(String name, String worker, String... tags) {
        RequiredSearch meter = registry.get(name).tag(AgentMetrics.WORKER, worker);
        return meter.tags(tags).counter().count();
    }

    private double tasks(String worker, String outcome) {
        return count(AgentMetrics.TASKS, worker, AgentMetrics.OUTCOME, outcome);
    }

    private double assignments(String worker, String outcome) {
        return count(AgentMetrics.ASSIGNMENTS, worker, AgentMetrics.OUTCOME, outcome);
    }

    @Test
    void eachMeterCountsItsEventTaggedWithTheWorker() {
        AgentMetrics m = new AgentMetrics(registry, "w1");

        m.taskRun(10);
        m.taskRun(30);
        m.assignmentCompleted();
        m.taskCancelled();
        m.assignmentStoppedRoundClosed(2);
        m.assignmentSkippedStale(3);
        m.deadLetter();
        m.retry();
        m.retry();
        m.transactionCommitted();
        m.transactionCommitted();
        m.transactionCommitted();
        m.transactionAborted();

        assertEquals(2, tasks("w1", "completed"));
        assertEquals(1, tasks("w1", "cancelled"));
        assertEquals(5, tasks("w1", "not_run"), "2 left by the stopped assignment, 3 of the skipped one");
        assertEquals(1, assignments("w1", "completed"));
        assertEquals(1, assignments("w1", "stopped_round_closed"));
        assertEquals(1, assignments("w1", "skipped_stale"));
        assertEquals(1, count(AgentMetrics.DEAD_LETTERS, "w1"));
        assertEquals(2, count(AgentMetrics.RETRIES, "w1"));
        assertEquals(3, count(AgentMetrics.TRANSACTIONS, "w1", AgentMetrics.OUTCOME, "committed"));
        assertEquals(1, count(AgentMetrics.TRANSACTIONS, "w1", AgentMetrics.OUTCOME, "aborted"));
        var compute = registry.get(AgentMetrics.COMPUTE_TIME)
                .tag(AgentMetrics.WORKER, "w1")
                .timer();
        assertEquals(2, compute.count());
        assertEquals(40, compute.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(30, compute.max(TimeUnit.MILLISECONDS), 1e-9);

        // the getters read the same meters
        assertEquals(
                List.of(2L, 1L, 5L, 1L, 1L, 1L, 1L, 2L, 3L, 1L),
                List.of(
                        m.tasksRun(),
                        m.tasksCancelled(),
                        m.tasksNotRun(),
                        m.assignmentsCompleted(),
                        m.assignmentsStoppedRoundClosed(),
                        m.assignmentsSkippedStale(),
                        m.deadLetters(),
                        m.retries(),
                        m.transactionsCommitted(),
                        m.transactionsAborted()));
    }

    /** The demo runs a dozen agents in one process with one registry: each keeps its own numbers. */
    @Test
    void agentsSharingOneRegistryKeepTheirOwnNumbers() {
        int agents = 12;
        AgentMetrics[] fleet = new AgentMetrics[agents];
        for (int i = 0; i < agents; i++) {
            fleet[i] = new AgentMetrics(registry, "agent-" + (i + 1));
        }
        for (int i = 0; i < agents; i++) {
            for (int t = 0; t <= i; t++) {
                fleet[i].taskRun(i + 1);
            }
            if (i % 2 == 0) {
                fleet[i].deadLetter();
            }
        }

        for (int i = 0; i < agents; i++) {
            String worker = "agent-" + (i + 1);
            assertEquals(i + 1, tasks(worker, "completed"), worker);
            assertEquals(i + 1, fleet[i].tasksRun(), worker);
            assertEquals(i % 2 == 0 ? 1 : 0, count(AgentMetrics.DEAD_LETTERS, worker), worker);
            assertEquals(
                    (i + 1.0) * (i + 1),
                    registry.get(AgentMetrics.COMPUTE_TIME)
                            .tag(AgentMetrics.WORKER, worker)
                            .timer()
                            .totalTime(TimeUnit.MILLISECONDS),
                    1e-9,
                    worker);
        }
        var completed = registry.find(AgentMetrics.TASKS).tag(AgentMetrics.OUTCOME, "completed");
        assertEquals(agents, completed.counters().size(), "one series per agent");
    }

    @Test
    void aStoppedAgentsMetersLeaveTheRegistryAndItsSuccessorStartsFromZero() {
        AgentMetrics first = new AgentMetrics(registry, "w1");
        AgentMetrics other = new AgentMetrics(registry, "w2");
        first.retry();
        other.retry();

        first.unregister();

        assertTrue(registry.find(AgentMetrics.RETRIES)
                .tag(AgentMetrics.WORKER, "w1")
                .counters()
                .isEmpty());
        assertEquals(1, count(AgentMetrics.RETRIES, "w2"), "another agent's meters stay");
        assertEquals(1, first.retries(), "the stopped agent's getters still read its meters");
        AgentMetrics again = new AgentMetrics(registry, "w1");
        assertEquals(0, again.retries());
        assertEquals(0, count(AgentMetrics.RETRIES, "w1"));
    }

    @Test
    void theModelsGaugeReadsTheLatestAgentsCacheOneSeries() {
        AgentMetrics m = new AgentMetrics(registry, "w1");
        m.modelsHeld(() -> 3);
        m.modelsHeld(() -> 5); // started over: a new agent, a new model cache, the same meters

        assertEquals(1, registry.find(AgentMetrics.MODELS).gauges().size());
        assertEquals(
                5.0,
                registry.get(AgentMetrics.MODELS)
                        .tag(AgentMetrics.WORKER, "w1")
                        .gauge()
                        .value());
    }

    @Test
    void theDeviceGaugesFollowTheDeviceOneSeriesAtATime() {
        AgentMetrics m = new AgentMetrics(registry, "w1");
        ComputeDevice cpu = new ComputeDevice(io.ata.schemas.DeviceKind.CPU, "Some CPU", 1 << 30, 1);
        ComputeDevice gpu = new ComputeDevice(io.ata.schemas.DeviceKind.GPU, "Some GPU", 8L << 30, 0);

        m.device(cpu);
        m.device(cpu); // every heartbeat asks again: nothing changes
        assertEquals(1, registry.find(AgentMetrics.DEVICE).gauges().size());
        assertEquals(
                1.0,
                registry.get(AgentMetrics.DEVICE)
                        .tags(
                                AgentMetrics.WORKER,
                                "w1",
                                AgentMetrics.DEVICE_KIND,
                                "CPU",
                                AgentMetrics.DEVICE_NAME,
                                "Some CPU")
                        .gauge()
                        .value());

        m.device(gpu);
        assertEquals(1, registry.find(AgentMetrics.DEVICE).gauges().size(), "the CPU's series is gone");
        assertEquals(
                8.0 * (1L << 30),
                registry.get(AgentMetrics.DEVICE_MEMORY)
                        .tags(AgentMetrics.DEVICE_KIND, "GPU", AgentMetrics.DEVICE_NAME, "Some GPU")
                        .gauge()
                        .value());
        assertEquals(gpu, m.device());

        m.unregister();
        assertTrue(registry.find(AgentMetrics.DEVICE).gauges().isEmpty());
        assertTrue(registry.find(AgentMetrics.DEVICE_MEMORY).gauges().isEmpty());
    }
}
