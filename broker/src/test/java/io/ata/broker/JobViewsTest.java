package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.ata.schemas.JobState;
import io.ata.schemas.TaskAssignment;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The stats query rebuilds a job only when its stored state changed, and then shows the new state. */
class JobViewsTest {
    private static final long NOW = 1_000_000;
    private static final int BATCH = 4;
    private final BrokerSettings settings = BrokerSettings.defaults();
    private final JobViews views =
            new JobViews(new ObjectMapper(), settings, worker -> null, new RoundHistory(RoundHistory.DEFAULT_CAPACITY));

    private static void play(JobRuntime runtime, long round) {
        runtime.syncMembership(Records.aliveWorkers(3, NOW), NOW);
        List<TaskAssignment> assignments = runtime.allocate(round, round - 1, NOW);
        runtime.fold(RoundEvents.closed(
                "job",
                round,
                BATCH,
                RoundEvents.completed(assignments, (worker, task) -> 10.0 * (1 + worker.charAt(1) - '0')),
                NOW));
    }

    @Test
    void anUnchangedStateReusesItsSummariesAChangedOneIsRebuilt() {
        JobRuntime runtime = JobRuntime.create(RoundEvents.opened("job", 1, BATCH, "ata-auto", NOW), settings);
        play(runtime, 1);
        JobState first = runtime.snapshot();

        List<WorkerSummary> summaries = views.workerSummaries(first);
        assertEquals(JobRuntime.restore(first, settings).workerSummaries(), summaries);
        assertSame(summaries, views.workerSummaries(runtime.snapshot()), "an equal state: not rebuilt");

        play(runtime, 2);
        JobState second = runtime.snapshot();
        List<WorkerSummary> after = views.workerSummaries(second);
        assertEquals(JobRuntime.restore(second, settings).workerSummaries(), after);
        assertNotEquals(summaries, after, "round 2 was folded: more tasks observed");
    }
}
