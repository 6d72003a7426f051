package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeSchedule;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pacer against a fake monotonic clock: assertions on what it asks, never on real time. */
class TaskPacerTest {

    private static final long MS = 1_000_000L;

    /** A monotonic clock that only moves when told, and a sleeper that moves it. */
    private static final class FakeTime {
        long now = 5_000 * MS; // any origin: only differences count
        final List<Long> sleeps = new ArrayList<>();

        void sleep(long nanos) {
            sleeps.add(nanos);
            now += nanos;
        }

        TaskPacer pacer(TaskTimeDistribution distribution, double scale) {
            return new TaskPacer(distribution, scale, new SplittableRandom(1), () -> now, this::sleep);
        }
    }

    /** Every task drawn at 30 ms. */
    private static final TaskTimeDistribution THIRTY_MS = new TaskTimeDistribution.Constant(30);

    /** A fresh clock for each test (JUnit makes a new instance per test). */
    private final FakeTime time = new FakeTime();

    @Test
    void stretchesAFastTaskToTheDrawnDuration() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 1.0);

        TaskPacer.Paced<String> paced = pacer.run(() -> {
            time.now += 4 * MS; // the computation takes 4 ms
            return "gradient";
        });

        assertEquals("gradient", paced.value());
        assertEquals(List.of(26 * MS), time.sleeps);
        assertEquals(30.0, paced.computeMs(), 0);
        assertEquals(30.0, paced.targetMs(), 0);
    }

    @Test
    void aScheduleGivesEachRoundsTasksItsDistribution() throws InterruptedException {
        // 30 ms through round 20, ten times slower from round 21 on, as a scenario's changes say
        TimeSchedule schedule = new TimeSchedule(
                THIRTY_MS,
                List.of(new TimeSchedule.Change(20, new TaskTimeDistribution.Constant(300))),
                0,
                TimeSchedule.NEVER);
        TaskPacer pacer = new TaskPacer(schedule, 0.5, new SplittableRandom(1), () -> time.now, time::sleep);

        assertEquals(15.0, pacer.run(stop -> Optional.of(1), null, 20).targetMs(), 0);
        assertEquals(150.0, pacer.run(stop -> Optional.of(1), null, 21).targetMs(), 0);
        assertEquals(List.of(15 * MS, 150 * MS), time.sleeps);
    }

    @Test
    void neverSleepsWhenTheComputationTookLonger() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 1.0);

        TaskPacer.Paced<String> paced = pacer.run(() -> {
            time.now += 45 * MS;
            return "slow";
        });

        assertTrue(time.sleeps.isEmpty());
        assertEquals(45.0, paced.computeMs(), 0);
    }

    @Test
    void scalesTheDrawnDuration() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 0.5);

        TaskPacer.Paced<Integer> paced = pacer.run(() -> 1);

        assertEquals(List.of(15 * MS), time.sleeps);
        assertEquals(15.0, paced.computeMs(), 0);
    }

    @Test
    void sleepsAgainAfterAnEarlyWakeUp() throws InterruptedException {
        long[] now = {0};
        List<Long> sleeps = new ArrayList<>();
        TaskPacer pacer = new TaskPacer(
                new TaskTimeDistribution.Constant(30), 1.0, new SplittableRandom(1), () -> now[0], nanos -> {
                    sleeps.add(nanos);
                    now[0] += sleeps.size() == 1 ? nanos / 2 : nanos; // the first sleep ends half-way
                });

        TaskPacer.Paced<Integer> paced = pacer.run(() -> 1);

        assertEquals(List.of(30 * MS, 15 * MS), sleeps);
        assertEquals(30.0, paced.computeMs(), 0);
    }

    @Test
    void naturalSpeedMeasuresTheComputationOnly() throws InterruptedException {
        TaskPacer pacer = time.pacer(null, 1.0);

        TaskPacer.Paced<Integer> paced = pacer.run(() -> {
            time.now += 7 * MS + 500_000;
            return 1;
        });

        assertFalse(pacer.isEmulated());
        assertTrue(time.sleeps.isEmpty());
        assertEquals(7.5, paced.computeMs(), 0);
        assertTrue(Double.isNaN(paced.targetMs()));
    }

    @Test
    void drawsEachTaskFromTheDistribution() throws InterruptedException {
        TaskTimeDistribution uniform = new TaskTimeDistribution.Uniform(10, 20);
        TaskPacer pacer = time.pacer(uniform, 1.0);
        SplittableRandom sameStream = new SplittableRandom(1);

        for (int i = 0; i < 3; i++) {
            double expected = uniform.sample(sameStream);
            TaskPacer.Paced<Integer> paced = pacer.run(() -> 1);
            assertEquals(expected, paced.targetMs(), 0);
            assertEquals(Math.round(expected * MS), (long) time.sleeps.get(i));
        }
    }

    @Test
    void aCancelledStretchStopsAndReportsTheTimeWorked() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 1.0);
        List<Long> waits = new ArrayList<>();

        TaskPacer.Paced<Integer> paced = pacer.run(
                () -> {
                    time.now += 4 * MS;
                    return 1;
                },
                nanos -> {
                    waits.add(nanos);
                    time.now += 10 * MS; // the round closes 10 ms into the stretch
                    return true;
                });

        assertTrue(paced.cancelled());
        assertEquals(List.of(26 * MS), waits);
        assertTrue(time.sleeps.isEmpty(), "the cancellation waits instead of the sleeper");
        assertEquals(14.0, paced.computeMs(), 0);
        assertEquals(30.0, paced.targetMs(), 0);
    }

    @Test
    void aCancellationThatNeverComesLetsTheTaskRunItsDuration() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 1.0);
        List<Long> waits = new ArrayList<>();

        TaskPacer.Paced<Integer> paced = pacer.run(() -> 1, nanos -> {
            waits.add(nanos);
            time.now += waits.size() == 1 ? 20 * MS : nanos; // wakes early once, then waits the rest
            return false;
        });

        assertFalse(paced.cancelled());
        assertEquals(List.of(30 * MS, 10 * MS), waits);
        assertEquals(30.0, paced.computeMs(), 0);
    }

    /**
     * A timed wait of Java 17 rounds a fraction of a millisecond up to a whole one, so the
     * cancellation is asked to wait whole milliseconds and the sleeper, which parks to the
     * nanosecond, the rest: an emulated task lasts its drawn duration, not up to 1 ms more.
     */
    @Test
    void theCancellationWaitsWholeMillisecondsAndTheSleeperTheFraction() throws InterruptedException {
        TaskPacer pacer = time.pacer(new TaskTimeDistribution.Constant(30.4), 1.0);
        List<Long> waits = new ArrayList<>();

        TaskPacer.Paced<Integer> paced = pacer.run(
                () -> {
                    time.now += 4 * MS;
                    return 1;
                },
                nanos -> {
                    waits.add(nanos);
                    time.now += nanos;
                    return false;
                });

        assertEquals(List.of(26 * MS), waits);
        assertEquals(List.of(400_000L), time.sleeps);
        assertFalse(paced.cancelled());
        assertEquals(30.4, paced.computeMs(), 1e-9);
    }

    @Test
    void atNaturalSpeedATaskIsNeverCancelled() throws InterruptedException {
        TaskPacer pacer = time.pacer(null, 1.0);

        TaskPacer.Paced<Integer> paced = pacer.run(() -> 1, nanos -> true);

        assertFalse(paced.cancelled());
        assertEquals(1, paced.value());
    }

    @Test
    void aCancellationThatComesAsTheDurationEndsLeavesTheTaskCompleted() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 1.0);

        TaskPacer.Paced<Integer> paced = pacer.run(() -> 1, nanos -> {
            time.now += nanos; // the wait ran its full time; the round closed just then
            return true;
        });

        assertFalse(paced.cancelled(), "the task ran its whole drawn duration");
        assertEquals(30.0, paced.computeMs(), 0);
    }

    @Test
    void aComputationThatStopsPartWayIsCancelledWithTheTimeWorkedAndNotStretched() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 1.0);
        List<Long> waits = new ArrayList<>();
        boolean[] closed = {false};

        TaskPacer.Paced<String> paced = pacer.run(
                stop -> {
                    for (int step = 0; step < 5; step++) {
                        if (stop.getAsBoolean()) {
                            return Optional.empty();
                        }
                        time.now += 3 * MS;
                        closed[0] = step == 1; // the round closes during the second step
                    }
                    return Optional.of("gradient");
                },
                nanos -> {
                    waits.add(nanos);
                    return closed[0];
                });

        assertTrue(paced.cancelled());
        assertNull(paced.value());
        assertEquals(6.0, paced.computeMs(), 0, "two steps of 3 ms");
        assertEquals(List.of(0L, 0L, 0L), waits, "asked without waiting before each step");
        assertTrue(time.sleeps.isEmpty());
    }

    @Test
    void aComputationThatCompletesIsStretchedAsBefore() throws InterruptedException {
        TaskPacer pacer = time.pacer(THIRTY_MS, 1.0);

        TaskPacer.Paced<String> paced = pacer.run(
                stop -> {
                    time.now += 12 * MS;
                    return Optional.of("gradient");
                },
                null);

        assertFalse(paced.cancelled());
        assertEquals("gradient", paced.value());
        assertEquals(List.of(18 * MS), time.sleeps);
        assertEquals(30.0, paced.computeMs(), 0);
    }

    @Test
    void aComputationStoppedByAnInterruptIsNotACancellation() {
        TaskPacer pacer = time.pacer(null, 1.0);

        assertThrows(
                InterruptedException.class,
                () -> pacer.run(
                        stop -> {
                            Thread.currentThread().interrupt(); // the agent is being killed
                            return stop.getAsBoolean() ? Optional.empty() : Optional.of("gradient");
                        },
                        nanos -> false));
        assertFalse(Thread.currentThread().isInterrupted(), "the interrupt is consumed by the exception");
    }
}
