package io.ata.lab.report;

import io.ata.lab.timinglog.TimingRecord;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The compute time a live job had cost its agents at any moment: the durations of its tasks
 * summed in the order they ended. Every task counts (accepted, late, and the time worked on a
 * cancelled one), as in the job's total worker time. A record without an end time counts as
 * ending last.
 */
public final class WorkerTimeline {
    private final long[] endsMs;
    private final double[] cumulativeMs;

    private WorkerTimeline(long[] endsMs, double[] cumulativeMs) {
        this.endsMs = endsMs;
        this.cumulativeMs = cumulativeMs;
    }

    /** @param records a job's timing log; timestamps are the tasks' end times, epoch milliseconds */
    public static WorkerTimeline of(List<TimingRecord> records) {
        TimingRecord[] sorted = records.stream()
                .sorted(Comparator.comparingLong(WorkerTimeline::end))
                .toArray(TimingRecord[]::new);
        long[] ends = new long[sorted.length];
        double[] cumulative = new double[sorted.length];
        double sum = 0;
        for (int i = 0; i < sorted.length; i++) {
            sum += sorted[i].duration();
            ends[i] = end(sorted[i]);
            cumulative[i] = sum;
        }
        return new WorkerTimeline(ends, cumulative);
    }

    /** Milliseconds of compute time of the tasks that had ended at {@code epochMs} (inclusive). */
    public double workerMsUntil(long epochMs) {
        int i = Arrays.binarySearch(endsMs, epochMs);
        if (i >= 0) {
            while (i + 1 < endsMs.length && endsMs[i + 1] == epochMs) {
                i++; // ties: every task ended at that instant counts
            }
        } else {
            i = -i - 2; // the last task that ended before epochMs
        }
        return i < 0 ? 0 : cumulativeMs[i];
    }

    private static long end(TimingRecord r) {
        return r.timestamp() == null ? Long.MAX_VALUE : r.timestamp();
    }
}
