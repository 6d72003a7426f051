package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.WorkerStats;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * The detector's two numbers: how often a stationary stream alarms (false alarms), and after how
 * many durations a 10x change alarms (delay). One worker, {@code TASKS} durations a round.
 */
class DriftDetectorTest {
    private static final int TASKS = 10;

    /** Shifted exponential of mean {@code mean}: {@code mean/2 + Exp(mean/2)}, the paper's shape. */
    private static ToDoubleFunction<SplittableRandom> shiftedExponential(double mean) {
        return rng -> mean / 2 - mean / 2 * Math.log(1 - rng.nextDouble());
    }

    private static ToDoubleFunction<SplittableRandom> exponential(double mean) {
        return rng -> -mean * Math.log(1 - rng.nextDouble());
    }

    /** Feeds {@code rounds} rounds of {@code TASKS} durations; returns the alarms. */
    private static long feed(
            DriftDetector detector,
            WorkerStats stats,
            ToDoubleFunction<SplittableRandom> time,
            long rounds,
            SplittableRandom rng) {
        RoundOutcome outcome = new RoundOutcome(1);
        long before = detector.alarms();
        for (long k = 1; k <= rounds; k++) {
            outcome.reset(k, 1);
            for (int t = 0; t < TASKS; t++) {
                outcome.addCompleted(0, time.applyAsDouble(rng), true);
            }
            outcome.foldInto(stats);
            detector.observe(stats, outcome);
        }
        return detector.alarms() - before;
    }

    /** The durations fed until the first alarm (a multiple of TASKS), or -1 within {@code maxRounds}. */
    private static long delay(
            DriftDetector detector,
            WorkerStats stats,
            ToDoubleFunction<SplittableRandom> time,
            long maxRounds,
            SplittableRandom rng) {
        for (long k = 1; k <= maxRounds; k++) {
            if (feed(detector, stats, time, 1, rng) > 0) {
                return k * TASKS;
            }
        }
        return -1;
    }

    @Test
    void stationaryStreamsRarelyAlarm() {
        // 10^6 durations per family, after a warm-up: fewer than 2 alarms each (seed 7: none for either)
        for (ToDoubleFunction<SplittableRandom> time : java.util.List.of(shiftedExponential(58), exponential(58))) {
            DriftDetector detector = new DriftDetector();
            WorkerStats stats = new WorkerStats(1);
            SplittableRandom rng = new SplittableRandom(7);
            feed(detector, stats, time, 100, rng);
            long alarms = feed(detector, stats, time, 100_000, rng);
            assertTrue(alarms < 2, "false alarms in 10^6 stationary durations: " + alarms);
        }
    }

    @Test
    void tenfoldSlowdownAlarmsAfterOneRoundAndRestartsTheStatistics() {
        for (long seed = 1; seed <= 20; seed++) {
            DriftDetector detector = new DriftDetector();
            WorkerStats stats = new WorkerStats(1);
            SplittableRandom rng = new SplittableRandom(seed);
            feed(detector, stats, shiftedExponential(58), 2000, rng);
            assertEquals(TASKS, delay(detector, stats, shiftedExponential(580), 5, rng), "seed " + seed);
            assertTrue(stats.count(0) <= TASKS, "restarted from the round's durations: " + stats.count(0));
            assertTrue(stats.mean(0) > 300, "the mean is the new speed's: " + stats.mean(0));
        }
    }

    @Test
    void aSingleHugeDurationDoesNotAlarm() {
        // a GC pause or a moment of contention: one duration 100x the mean, among normal ones
        DriftDetector detector = new DriftDetector();
        WorkerStats stats = new WorkerStats(1);
        SplittableRandom rng = new SplittableRandom(7);
        feed(detector, stats, shiftedExponential(58), 200, rng);
        long count = stats.count(0);
        RoundOutcome outcome = new RoundOutcome(1);
        outcome.reset(201, 1);
        outcome.addCompleted(0, 5800, true);
        for (int t = 1; t < TASKS; t++) {
            outcome.addCompleted(0, 58, true);
        }
        outcome.foldInto(stats);
        detector.observe(stats, outcome);
        assertEquals(0, detector.alarms(), "one outlier is no change of speed");
        assertEquals(count + TASKS, stats.count(0), "the statistics kept every duration");
    }

    @Test
    void tenfoldSpeedupAlarmsWithinTenToThirtyDurations() {
        // shifted exponential: residuals down to -1.8 sd, about 1.3 per duration; exponential: -0.9, 0.4
        long[] bound = {10, 30};
        ToDoubleFunction<SplittableRandom>[][] pairs = pairs();
        for (int p = 0; p < pairs.length; p++) {
            ToDoubleFunction<SplittableRandom>[] pair = pairs[p];
            for (long seed = 1; seed <= 20; seed++) {
                DriftDetector detector = new DriftDetector();
                WorkerStats stats = new WorkerStats(1);
                SplittableRandom rng = new SplittableRandom(seed);
                feed(detector, stats, pair[0], 200, rng);
                long delay = delay(detector, stats, pair[1], 10, rng);
                assertTrue(delay > 0 && delay <= bound[p], "seed " + seed + ": durations to alarm " + delay);
                assertTrue(stats.mean(0) < 20, "the mean is the new speed's: " + stats.mean(0));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static ToDoubleFunction<SplittableRandom>[][] pairs() {
        return new ToDoubleFunction[][] {
            {shiftedExponential(58), shiftedExponential(5.8)}, {exponential(58), exponential(5.8)}
        };
    }

    @Test
    void oneSampleReferenceAlarmsOnATenfoldDifference() {
        DriftDetector detector = new DriftDetector();
        WorkerStats stats = new WorkerStats(1);
        RoundOutcome outcome = new RoundOutcome(1);
        outcome.reset(1, 1);
        outcome.addCompleted(0, 5800, true); // a cold start
        outcome.foldInto(stats);
        detector.observe(stats, outcome);
        outcome.reset(2, 1);
        outcome.addCompleted(0, 60, true);
        outcome.foldInto(stats);
        detector.observe(stats, outcome);
        assertEquals(1, detector.alarms());
        assertEquals(1, stats.count(0));
        assertEquals(60, stats.mean(0), 1e-9);
    }
}
