package io.ata.lab.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.WorkerStats;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TaskTimeDistribution.Exponential;
import io.ata.workloads.time.TaskTimeDistribution.Shifted;
import io.ata.workloads.time.TimeModels;
import io.ata.workloads.time.TimeSchedule;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Drift handling in the simulator, asserted on allocation counts: after the linear model's
 * fastest worker becomes 10x slower, ata-auto stops over-loading it within 50 rounds; ata-auto
 * without drift handling does not. A slow worker that becomes fast gets more tasks. The rounds run
 * without backup tasks, so that drift handling alone is what is measured ({@code
 * BackupSimulationTest} runs them with).
 */
class DriftSimulationTest {
    private static final int WORKERS = 51;
    private static final int BATCH = 23;
    private static final long CHANGE = 2000;

    /** Tasks per round given to {@code worker} by {@code policy}, rounds 1..rounds. */
    private static int[] allocations(String policy, TimeSchedule[] fleet, int worker, long rounds, long seed) {
        return run(policy, fleet, worker, rounds, seed, new WorkerStats(WORKERS));
    }

    /** Runs {@code policy} on {@code stats} without backup tasks; returns the tasks per round of {@code worker}. */
    private static int[] run(
            String policy, TimeSchedule[] fleet, int worker, long rounds, long seed, WorkerStats stats) {
        return SimulatedRounds.run(policy, fleet, BATCH, worker, rounds, seed, stats, false)
                .tasks();
    }

    /** The linear model with worker {@code worker}'s mean multiplied by {@code factor} after round {@link #CHANGE}. */
    private static TimeSchedule[] linearWithChange(int worker, double factor) {
        TaskTimeDistribution[] model = TimeModels.byName("linear", WORKERS);
        TimeSchedule[] fleet = new TimeSchedule[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            fleet[i] = TimeSchedule.constant(model[i]);
        }
        double half = model[worker].mean() / 2 * factor;
        fleet[worker] = new TimeSchedule(
                model[worker],
                List.of(new TimeSchedule.Change(CHANGE, new Shifted(half, new Exponential(half)))),
                0,
                TimeSchedule.NEVER);
        return fleet;
    }

    private static int sum(int[] tasks, long from, long to) {
        int total = 0;
        for (long k = from; k <= to; k++) {
            total += tasks[(int) k];
        }
        return total;
    }

    /** FTA's allocation for the fleet as it is after the change: the oracle that knows the new speeds. */
    private static int[] ftaAfterChange(TimeSchedule[] fleet) {
        double[] means = Arrays.stream(fleet)
                .mapToDouble(s -> s.timeIn(CHANGE + 1).mean())
                .toArray();
        int[] allocation = new int[WORKERS];
        new AllocationSolver().solve(means, WORKERS, BATCH, allocation);
        return allocation;
    }

    @Test
    void slowedFastestWorkerIsUnloadedWithinFiftyRounds() {
        TimeSchedule[] fleet = linearWithChange(0, 10);
        int oracle = ftaAfterChange(fleet)[0];
        for (long seed = 1; seed <= 3; seed++) {
            int[] drift = allocations("ata-auto", fleet, 0, CHANGE + 200, seed);
            int[] plain = allocations("ata-auto-no-drift", fleet, 0, CHANGE + 200, seed);
            assertTrue(drift[(int) CHANGE] >= 5 && plain[(int) CHANGE] >= 5, "before the change worker 1 is loaded");
            int most = Arrays.stream(drift, (int) CHANGE + 50, (int) CHANGE + 201)
                    .max()
                    .orElseThrow();
            assertTrue(
                    most <= oracle,
                    "seed " + seed + ": from 50 rounds after the change ata-auto gives the slowed worker at most "
                            + oracle + " task(s) (fta's with the new speeds), but gave " + most);
            int plainLeast = Arrays.stream(plain, (int) CHANGE + 50, (int) CHANGE + 201)
                    .min()
                    .orElseThrow();
            assertTrue(
                    plainLeast > oracle + 2,
                    "seed " + seed + ": without drift handling the slowed worker stays over-loaded, got " + plainLeast);
        }
    }

    @Test
    void spedUpSlowWorkerGetsMoreTasksWithinFiftyRounds() {
        int worker = 7; // mean 464: one task a round under FTA
        TimeSchedule[] fleet = linearWithChange(worker, 0.1);
        int oracle = ftaAfterChange(fleet)[worker];
        for (long seed = 1; seed <= 3; seed++) {
            int[] drift = allocations("ata-auto", fleet, worker, CHANGE + 200, seed);
            int[] plain = allocations("ata-auto-no-drift", fleet, worker, CHANGE + 200, seed);
            int before = sum(drift, CHANGE - 49, CHANGE);
            int after = sum(drift, CHANGE + 1, CHANGE + 50);
            assertTrue(
                    before <= 50 && after >= before + 5 * 25,
                    "seed " + seed
                            + ": the sped-up worker should get far more tasks in the 50 rounds after the change ("
                            + before + " -> " + after + ")");
            int least = Arrays.stream(drift, (int) CHANGE + 50, (int) CHANGE + 201)
                    .min()
                    .orElseThrow();
            assertTrue(least >= oracle - 2, "seed " + seed + ": then about fta's " + oracle + ", got " + least);
            assertTrue(
                    sum(plain, CHANGE + 1, CHANGE + 50) < after,
                    "without drift handling it learns more slowly: " + sum(plain, CHANGE + 1, CHANGE + 50));
        }
    }

    @Test
    void coldStartOutlierIsForgotten() {
        TaskTimeDistribution[] model = TimeModels.byName("linear", WORKERS);
        TimeSchedule[] stationary = new TimeSchedule[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            stationary[i] = TimeSchedule.constant(model[i]);
        }
        double mean = model[0].mean();
        for (long seed = 1; seed <= 3; seed++) {
            // The round of worker 1's first task: the plans before it do not depend on worker 1's times.
            int[] tasks = allocations("ata-auto", stationary, 0, 10, seed);
            int first = 1;
            while (tasks[first] == 0) {
                first++;
            }
            TimeSchedule[] fleet = stationary.clone();
            fleet[0] = new TimeSchedule( // its first tasks take 100x its mean, then its usual times
                    new TaskTimeDistribution.Constant(100 * mean),
                    List.of(new TimeSchedule.Change(first, model[0])),
                    0,
                    TimeSchedule.NEVER);
            WorkerStats drift = new WorkerStats(WORKERS);
            WorkerStats plain = new WorkerStats(WORKERS);
            int[] driftTasks = run("ata-auto", fleet, 0, 50, seed, drift);
            run("ata-auto-no-drift", fleet, 0, 50, seed, plain);
            assertTrue(
                    drift.mean(0) < 1.5 * mean && sum(driftTasks, 41, 50) >= 20,
                    "seed " + seed + ": after 50 rounds ata-auto forgot the cold start: mean " + drift.mean(0)
                            + ", tasks in rounds 41-50: " + sum(driftTasks, 41, 50));
            assertTrue(
                    plain.mean(0) > 3 * mean,
                    "seed " + seed + ": without drift handling the outlier still weighs on the mean: " + plain.mean(0));
        }
    }
}
