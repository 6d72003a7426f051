package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the stats query and the per-worker gauges show of a job's workers ({@link JobRuntime#workerSummaries()}). */
class WorkerSummaryTest {
    private static final String JOB = "job";
    private static final int BATCH = 6;
    private static final long NOW = 1_000_000;
    private static final double ALPHA = 12.0;
    private static final BrokerSettings SETTINGS = BrokerSettings.builder()
            .topicPrefix("")
            .defaultPolicy("ata")
            .alpha(ALPHA)
            .eta(0.8)
            .pipelinedAllocation(false)
            .build();

    private static WorkerHeartbeat alive(String worker, int partition) {
        return Records.heartbeat(worker, NOW, partition)
                .setDevice(DeviceKind.CPU)
                .build();
    }

    private static JobRuntime runtime(String policy) {
        JobRuntime runtime = JobRuntime.create(RoundEvents.opened(JOB, 1, BATCH, policy, NOW), SETTINGS);
        runtime.syncMembership(List.of(alive("w0", 0), alive("w1", 1), alive("w2", 2)), NOW);
        return runtime;
    }

    /** Round 1 allocated and closed with w0 at 10 ms and w1 at 30 ms a task; w2 got none or was not timed. */
    private static JobRuntime afterOneRound(String policy) {
        JobRuntime runtime = runtime(policy);
        List<TaskAssignment> first = runtime.allocate(1, 0, NOW);
        RoundEvent closed = RoundEvents.closed(
                JOB,
                1,
                BATCH,
                RoundEvents.completed(
                        first.stream()
                                .filter(a -> !a.getWorkerId().equals("w2"))
                                .toList(),
                        (worker, task) -> worker.equals("w0") ? 10.0 : 30.0),
                NOW);
        runtime.fold(closed);
        runtime.allocate(2, 1, NOW);
        return runtime;
    }

    @Test
    void theLowerBoundIsAtasScoreForTheNextRoundAndTheOpenRoundsTasksAreCounted() {
        JobRuntime runtime = afterOneRound("ata");
        List<WorkerSummary> workers = runtime.workerSummaries();

        assertEquals(
                List.of("w0", "w1", "w2"),
                workers.stream().map(WorkerSummary::worker).toList());
        // ATA's absolute width under the paper's constants: s = mean - c (sqrt(L/K) + L/K), L = ln(2 k^2),
        // k = 2 the round it would plan next
        double c = ConstantConvention.PAPER.ataWidth(ALPHA, Double.NaN);
        double logTerm = Math.log(2 * 2.0 * 2.0);
        for (WorkerSummary w : workers) {
            if (w.tasks() == 0) {
                assertTrue(Double.isNaN(w.meanMs()) && Double.isNaN(w.lowerBoundMs()), w.toString());
                continue;
            }
            double expectedMean = w.worker().equals("w0") ? 10.0 : 30.0;
            double shape = Math.sqrt(logTerm / w.tasks()) + logTerm / w.tasks();
            assertEquals(expectedMean, w.meanMs(), 1e-12, w.toString());
            assertEquals(expectedMean - c * shape, w.lowerBoundMs(), 1e-9, w.toString());
            assertEquals(w.tasks() >= 2 ? 0.0 : Double.NaN, w.sdMs(), 1e-6, w.toString()); // every time equal
        }
        int allocated = 0;
        for (WorkerSummary w : workers) {
            int expected = runtime.lastAllocation().stream()
                    .filter(e -> e.getWorkerId().equals(w.worker()))
                    .mapToInt(e -> e.getTaskIds().size())
                    .sum();
            assertEquals(expected, w.tasksThisRound(), w.toString());
            allocated += w.tasksThisRound();
        }
        assertEquals(BATCH, allocated, "ata gives the open round's B tasks");
    }

    @Test
    void aPolicyWithoutConfidenceBoundsHasNone() {
        for (WorkerSummary w : afterOneRound("uta").workerSummaries()) {
            assertTrue(Double.isNaN(w.lowerBoundMs()), w.toString());
        }
    }

    @Test
    void theSummariesSurviveTheStoredState() {
        JobRuntime runtime = afterOneRound("ata");
        JobRuntime restored = JobRuntime.restore(runtime.snapshot(), SETTINGS);

        assertEquals(runtime.workerSummaries(), restored.workerSummaries());
        assertFalse(restored.workerSummaries().isEmpty());
    }
}
