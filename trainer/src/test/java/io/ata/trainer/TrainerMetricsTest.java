package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The trainer's meters, read back from the registry they are registered in. */
class TrainerMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double count(String name, String job, String... tags) {
        return registry.get(name)
                .tags(tags)
                .tag(TrainerMetrics.JOB, job)
                .counter()
                .count();
    }

    private double gauge(String name, String job) {
        return registry.get(name).tag(TrainerMetrics.JOB, job).gauge().value();
    }

    private Timer timer(String name, String job) {
        return registry.get(name).tag(TrainerMetrics.JOB, job).timer();
    }

    private static RoundSummary round(String job, long round, double timeMs, double objective) {
        return new RoundSummary(job, round, timeMs, objective, 3, 0, 0, 0, 0, 0, 0);
    }

    @Test
    void eachCounterCountsItsEventTaggedWithTheJob() {
        JobProgress progress = new JobProgress();
        TrainerMetrics metrics = new TrainerMetrics(registry, "a", progress);

        metrics.resultOffered(OfferOutcome.ACCEPTED);
        metrics.resultOffered(OfferOutcome.ACCEPTED);
        metrics.resultOffered(OfferOutcome.LATE);
        metrics.resultOffered(OfferOutcome.CANCELLED);
        metrics.deadLettered();
        metrics.otherJobIgnored();
        metrics.otherJobIgnored();
        metrics.recovered();
        metrics.roundClosed(round("a", 1, 12.5, 4.0));
        metrics.roundClosed(round("a", 2, 7.5, 3.0));
        progress.modelAt(2, 3.0);

        assertEquals(2, count(TrainerMetrics.RESULTS, "a", TrainerMetrics.OUTCOME, "accepted"));
        assertEquals(1, count(TrainerMetrics.RESULTS, "a", TrainerMetrics.OUTCOME, "late"));
        assertEquals(1, count(TrainerMetrics.RESULTS, "a", TrainerMetrics.OUTCOME, "cancelled"));
        assertEquals(0, count(TrainerMetrics.RESULTS, "a", TrainerMetrics.OUTCOME, "duplicate"));
        assertEquals(0, count(TrainerMetrics.RESULTS, "a", TrainerMetrics.OUTCOME, "stale"));
        assertEquals(0, count(TrainerMetrics.RESULTS, "a", TrainerMetrics.OUTCOME, "invalid"));
        assertEquals(1, count(TrainerMetrics.DEAD_LETTERS, "a"));
        assertEquals(2, count(TrainerMetrics.OTHER_JOB_RECORDS, "a"));
        assertEquals(1, count(TrainerMetrics.RECOVERIES, "a"));
        assertEquals(2, count(TrainerMetrics.ROUNDS_CLOSED, "a"));
        Timer roundTime = timer(TrainerMetrics.ROUND_TIME, "a");
        assertEquals(2, roundTime.count());
        assertEquals(20.0, roundTime.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(12.5, roundTime.max(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(2, gauge(TrainerMetrics.MODEL_VERSION, "a"));
        assertEquals(3.0, gauge(TrainerMetrics.OBJECTIVE, "a"));

        TrainerMetrics.Snapshot s = metrics.snapshot();
        assertEquals(
                new TrainerMetrics.Snapshot(2, 2, 3.0, 2, 0, 0, 1, 0, 1, 2, 1, 1, 0, Double.NaN, Double.NaN, 0, 0, 0),
                s,
                "the snapshot reads the meters");
    }

    @Test
    void trainersOfTwoJobsInOneRegistryKeepTheirOwnNumbers() {
        JobProgress progressA = new JobProgress();
        JobProgress progressB = new JobProgress();
        TrainerMetrics a = new TrainerMetrics(registry, "a", progressA);
        TrainerMetrics b = new TrainerMetrics(registry, "b", progressB);

        a.resultOffered(OfferOutcome.STALE);
        b.resultOffered(OfferOutcome.STALE);
        b.resultOffered(OfferOutcome.STALE);
        progressA.modelAt(5, 1.0);
        progressB.modelAt(9, 2.0);

        assertEquals(1, count(TrainerMetrics.RESULTS, "a", TrainerMetrics.OUTCOME, "stale"));
        assertEquals(2, count(TrainerMetrics.RESULTS, "b", TrainerMetrics.OUTCOME, "stale"));
        assertEquals(1, a.snapshot().stale());
        assertEquals(2, b.snapshot().stale());
        assertEquals(5, gauge(TrainerMetrics.MODEL_VERSION, "a"));
        assertEquals(9, gauge(TrainerMetrics.MODEL_VERSION, "b"));
    }

    /** A stopped trainer's meters leave the registry; its successor's start at zero and show its own state. */
    @Test
    void aRestartedTrainerOfTheJobStartsFromZero() {
        TrainerMetrics first = new TrainerMetrics(registry, "a", new JobProgress());
        first.recovered();
        first.unregister();

        assertNull(registry.find(TrainerMetrics.RECOVERIES).meter(), "removed when the trainer stopped");
        assertEquals(1, first.snapshot().recoveries(), "its snapshot still reads them");

        JobProgress progress = new JobProgress();
        TrainerMetrics second = new TrainerMetrics(registry, "a", progress);
        progress.modelAt(7, 0.5);
        assertEquals(0, count(TrainerMetrics.RECOVERIES, "a"));
        assertEquals(0, second.snapshot().recoveries());
        assertEquals(7, gauge(TrainerMetrics.MODEL_VERSION, "a"), "the gauge follows the new trainer");
    }
}
