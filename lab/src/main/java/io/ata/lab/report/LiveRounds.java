package io.ata.lab.report;

import io.ata.lab.timinglog.TimingRecord;
import java.util.List;

/**
 * What a live job did round by round, as the demo's round charts need it: each round's time and
 * the timing records of every task its agents ran (completed, late or cancelled).
 *
 * @param policy       the job's allocation policy
 * @param roundTimesMs the time of round {@code k + 1} at index {@code k}, in milliseconds
 * @param timings      the job's timing records; each names its worker and round
 */
public record LiveRounds(String policy, double[] roundTimesMs, List<TimingRecord> timings) {
    public LiveRounds {
        roundTimesMs = roundTimesMs.clone();
        timings = List.copyOf(timings);
    }

    @Override
    public double[] roundTimesMs() {
        return roundTimesMs.clone();
    }

    public int rounds() {
        return roundTimesMs.length;
    }
}
