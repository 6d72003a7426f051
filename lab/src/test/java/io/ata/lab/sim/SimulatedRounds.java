package io.ata.lab.sim;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.WorkerStats;
import io.ata.allocation.policy.AllocationPolicy;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.allocation.policy.PolicyContext;
import io.ata.allocation.policy.PolicyFactory;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import io.ata.workloads.time.TimeSchedule;
import java.util.Arrays;

/**
 * A policy run round by round on a scheduled fleet, as {@link PolicyRun} runs it, keeping what the
 * simulation tests assert on: one watched worker's tasks per round, and each round's time.
 *
 * @param tasks     tasks planned for the watched worker in round {@code k} (index 0 unused)
 * @param roundTime the time of round {@code k}
 * @param exact     whether round {@code k}'s plan waited for every task (no probe beyond the batch)
 */
record SimulatedRounds(int[] tasks, double[] roundTime, boolean[] exact) {

    /**
     * Runs {@code policy} for {@code rounds} rounds over {@code stats}.
     *
     * @param withDeadlines run rounds under the policy's deadlines (backup tasks), as {@code ata
     *     simulate} does; false to run every plan as planned
     */
    static SimulatedRounds run(
            String policy,
            TimeSchedule[] fleet,
            int batch,
            int worker,
            long rounds,
            long seed,
            WorkerStats stats,
            boolean withDeadlines) {
        int n = fleet.length;
        double[] means =
                TimeModels.means(Arrays.stream(fleet).map(TimeSchedule::initial).toArray(TaskTimeDistribution[]::new));
        PolicyContext context =
                new PolicyContext(n, batch, means, ConstantConvention.EXPERIMENTS, Double.NaN, Double.NaN, "none");
        AllocationPolicy p = PolicyFactory.create(policy, context, seed, stats);
        ModelDurations durations = new ModelDurations(fleet, seed);
        RoundExecutor executor = new RoundExecutor();
        RoundOutcome outcome = new RoundOutcome(n);
        SimulatedRounds run = new SimulatedRounds(
                new int[(int) rounds + 1], new double[(int) rounds + 1], new boolean[(int) rounds + 1]);
        for (long k = 1; k <= rounds; k++) {
            durations.startRound(k);
            RoundPlan plan = p.plan(k);
            run.tasks[(int) k] = plan.tasks(worker);
            run.exact[(int) k] = plan.isExact();
            executor.run(plan, durations, withDeadlines ? p.deadlines().orElse(null) : null, outcome, n);
            run.roundTime[(int) k] = outcome.roundTime();
            outcome.foldInto(stats);
            p.observe(outcome);
        }
        return run;
    }
}
