package io.ata.bench;

import io.ata.lab.timinglog.TimingRecord;
import io.ata.schemas.TaskAssignment;
import io.ata.trainer.RoundSummary;
import io.ata.workeragent.AssignmentListener;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One live job's rounds taken apart against their own task times. A round's draws played back to
 * back (each worker's tasks of the round one after another from its open, the round over at the
 * {@code B}-th finished task) is the simulator's round on the same draws; what the live round took
 * beyond that is the live system's overhead, free of the sampling noise of comparing two means
 * over different draws. The overhead is split along the round's critical path, the worker whose
 * accepted task finished last:
 *
 * <ol>
 *   <li>the trainer's close of the round before: its transaction, from serializing to the commit
 *       (the mean of the job's {@code ata.trainer.publish.time});
 *   <li>model to task start: from that commit returning to the critical worker's first task
 *       starting (the model version read, and the assignment if it came last); negative when the
 *       agent started on the version as written, before the commit returned ({@code EarlyStart});
 *   <li>between tasks: the critical worker's gaps between one task's end and its next's start (a
 *       wait for a later assignment of the round, such as a backup's, included);
 *   <li>result to trainer, the rest: the last result's transaction and the trainer's read of it.
 * </ol>
 *
 * <p>It listens to the trainer's closes and the agents' task starts in the same process (one
 * monotonic clock); the task times are read back from the {@code timings} topic after the job. The
 * first round, which no close opened, is not taken apart.
 */
public final class RoundBreakdown {
    /**
     * Means per round, in ms, over the rounds taken apart.
     *
     * @param rounds rounds taken apart
     * @param liveMs the live round time, as the trainer measured it
     * @param drawsMs the same round's task times played back to back
     * @param publishMs the trainer's close of the round before, to its commit
     * @param modelToStartMs the close's commit to the critical worker's first task start
     * @param betweenTasksMs the critical worker's gaps between its tasks
     */
    public record Summary(
            int rounds, double liveMs, double drawsMs, double publishMs, double modelToStartMs, double betweenTasksMs) {
        /** What the live round took beyond its draws. */
        public double overheadMs() {
            return liveMs - drawsMs;
        }

        /** The overhead's rest: the last result's transaction and the trainer's read of it. */
        public double resultToTrainerMs() {
            return overheadMs() - publishMs - modelToStartMs - betweenTasksMs;
        }

        /** Live over the draws played back to back: the live system's cost, paired round by round. */
        public double ratio() {
            return liveMs / drawsMs;
        }
    }

    private record WorkerRound(String worker, long round) {}

    private final String job;
    private final int batch;
    private final Map<Long, Double> roundMs = new ConcurrentHashMap<>();
    private final Map<Long, Long> closeCommittedNanos = new ConcurrentHashMap<>();
    private final Map<WorkerRound, Long> startedNanos = new ConcurrentHashMap<>();

    /** Takes apart the rounds of {@code job}, whose rounds need {@code batch} results. */
    public RoundBreakdown(String job, int batch) {
        this.job = job;
        this.batch = batch;
    }

    /** For the agents: records when each worker's first task of each round of the job starts. */
    public AssignmentListener starts() {
        return new AssignmentListener() {
            @Override
            public void received(TaskAssignment assignment, long nanoTime) {}

            @Override
            public void started(TaskAssignment assignment, long nanoTime) {
                if (assignment.getJob().equals(job)) {
                    startedNanos.putIfAbsent(
                            new WorkerRound(assignment.getWorkerId(), assignment.getRound()), nanoTime);
                }
            }
        };
    }

    /** For the job's trainer: a round closed, its close committed at {@link RoundSummary#committedNanos()}. */
    public void roundClosed(RoundSummary summary) {
        roundMs.put(summary.round(), summary.roundTimeMs());
        closeCommittedNanos.put(summary.round(), summary.committedNanos());
    }

    /**
     * The means over every round that can be taken apart.
     *
     * @param timings the job's task timings (from its {@code timings} topic)
     * @param publishMs the trainer's mean close transaction, ms
     */
    public Summary summarize(List<TimingRecord> timings, double publishMs) {
        Map<Long, List<TimingRecord>> byRound = new HashMap<>();
        for (TimingRecord t : timings) {
            if (t.round() != null && t.timestamp() != null) {
                byRound.computeIfAbsent(t.round(), k -> new ArrayList<>()).add(t);
            }
        }
        int n = 0;
        double live = 0;
        double draws = 0;
        double toStart = 0;
        double between = 0;
        for (Map.Entry<Long, Double> round : roundMs.entrySet()) {
            long k = round.getKey();
            List<TimingRecord> ran = byRound.getOrDefault(k, List.of());
            TimingRecord last = ran.stream()
                    .filter(t -> t.status() == TimingRecord.Status.COMPLETED)
                    .max(Comparator.comparingLong(TimingRecord::timestamp))
                    .orElse(null);
            Long opened = closeCommittedNanos.get(k - 1);
            Long started = last == null ? null : startedNanos.get(new WorkerRound(last.worker(), k));
            double backToBack = drawsBackToBack(ran, batch);
            if (opened == null || started == null || Double.isNaN(backToBack)) {
                continue;
            }
            n++;
            live += round.getValue();
            draws += backToBack;
            toStart += (started - opened) / 1e6;
            between += gapsBefore(last, ran);
        }
        return new Summary(n, live / n, draws / n, publishMs, toStart / n, between / n);
    }

    /**
     * One round's draws played back to back: each worker's full task times (completed and late, in
     * the order they ended) summed as they run, and the round over at the {@code batch}-th smallest
     * sum; NaN if fewer tasks finished.
     */
    static double drawsBackToBack(List<TimingRecord> round, int batch) {
        Map<String, List<TimingRecord>> byWorker = new HashMap<>();
        for (TimingRecord t : round) {
            if (t.status() != TimingRecord.Status.CANCELLED) {
                byWorker.computeIfAbsent(t.worker(), w -> new ArrayList<>()).add(t);
            }
        }
        List<Double> finished = new ArrayList<>();
        for (List<TimingRecord> tasks : byWorker.values()) {
            tasks.sort(Comparator.comparingLong(TimingRecord::timestamp));
            double at = 0;
            for (TimingRecord t : tasks) {
                at += t.duration();
                finished.add(at);
            }
        }
        if (finished.size() < batch) {
            return Double.NaN;
        }
        finished.sort(null);
        return finished.get(batch - 1);
    }

    /**
     * The gaps on {@code last}'s worker between each of its tasks of the round, up to {@code last},
     * and the next: the next's start (its end less its time) less the one's end.
     */
    static double gapsBefore(TimingRecord last, List<TimingRecord> round) {
        List<TimingRecord> chain = round.stream()
                .filter(t -> t.worker().equals(last.worker()) && t.timestamp() <= last.timestamp())
                .sorted(Comparator.comparingLong(TimingRecord::timestamp))
                .toList();
        double gaps = 0;
        for (int i = 1; i < chain.size(); i++) {
            gaps += chain.get(i).timestamp()
                    - chain.get(i).duration()
                    - chain.get(i - 1).timestamp();
        }
        return gaps;
    }
}
