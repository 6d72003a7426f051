package io.ata.lab.report;

import io.ata.lab.sim.PolicySummary;
import io.ata.lab.sim.RunResult;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The metrics of one run that {@code runs.csv} lists per seed and {@code summary.csv} averages over
 * seeds, in their column order: declared once, so both files name, order and read them alike.
 */
enum RunMetric {
    ROUNDS("rounds", RunResult::rounds, PolicySummary::rounds),
    RUNTIME("runtime", RunResult::runtime, PolicySummary::runtime),
    TOTAL_WORKER_TIME("total_worker_time", RunResult::totalWorkerTime, PolicySummary::totalWorkerTime),
    MEAN_ROUND_TIME("mean_round_time", RunResult::meanRoundTime, PolicySummary::meanRoundTime),
    MEAN_BUSY_TIME("mean_busy_time", RunResult::meanBusyTime, PolicySummary::meanBusyTime),
    AVG_PROXY_REGRET("avg_proxy_regret", RunResult::averageProxyRegret, PolicySummary::averageProxyRegret),
    FINAL_OBJECTIVE("final_objective", RunResult::finalObjective, PolicySummary::finalObjective),
    WASTED_FRACTION("wasted_fraction", RunResult::wastedFraction, PolicySummary::wastedFraction),
    TAIL_MEAN_ROUND_TIME("tail_mean_round_time", RunResult::tailRoundTime, PolicySummary::tailRoundTime),
    TAIL_MEAN_BUSY_TIME("tail_mean_busy_time", RunResult::tailBusyTime, PolicySummary::tailBusyTime),
    FIRST_FTA_ROUND("first_fta_round", RunResult::firstFtaRound, PolicySummary::firstFtaRound),
    LAST_NON_FTA_ROUND("last_non_fta_round", RunResult::lastNonFtaRound, PolicySummary::lastNonFtaRound);

    private final String column;
    private final ToDoubleFunction<RunResult> valueInRun;
    private final Function<PolicySummary, PolicySummary.Stat> statOverSeeds;

    RunMetric(
            String column,
            ToDoubleFunction<RunResult> valueInRun,
            Function<PolicySummary, PolicySummary.Stat> statOverSeeds) {
        this.column = column;
        this.valueInRun = valueInRun;
        this.statOverSeeds = statOverSeeds;
    }

    String column() {
        return column;
    }

    /** Its value in one run (a count such as rounds is a whole number, written as one). */
    double inRun(RunResult run) {
        return valueInRun.applyAsDouble(run);
    }

    /** Its mean and spread over a policy's seeds. */
    PolicySummary.Stat overSeeds(PolicySummary summary) {
        return statOverSeeds.apply(summary);
    }
}
