package io.ata.broker;

import io.ata.schemas.ComputeTime;
import io.ata.schemas.JobNames;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import io.ata.workloads.TaskIds;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The rules a round event must keep, on its own and against its job's state, before the broker
 * lets it touch that state. A well-formed but forged event (a round far ahead, a timing of a task
 * that was never assigned, a compute time of 1e300) would otherwise move the statistics or stop
 * the job; it is refused instead, and the job goes on as if it had never come. A CLOSED event is
 * judged timing by timing: a bad timing is left out alone and the rest is folded ({@link
 * #checkClose}). Every compute time is judged by the one rule the trainer uses too, {@link
 * ComputeTime}; arrival and round times have the same bound.
 *
 * <p>Events the broker ignores without a dead letter, because a correct trainer sends them when
 * it restarts, are not decided here: a CLOSED event of a round already folded and an OPENED event
 * of a round before the last opened one.
 */
final class RoundEventRules {
    /** The highest round number: task ids and statistics stay far from overflow. */
    static final long MAX_ROUND = ModelVersions.MAX_ROUND;
    /** The largest batch: a round of more tasks is no training round. */
    static final int MAX_BATCH = 1_000_000;

    private RoundEventRules() {}

    /** Why {@code e} is refused on its own (before its job is looked at), or null. */
    static Refusal problem(RoundEvent e) {
        if (e.getJob().isBlank()) {
            return invalid("round event without job");
        }
        String name = JobNames.problem(e.getJob());
        if (name != null) {
            return invalid(name);
        }
        String at = "job " + e.getJob() + " round " + e.getRound() + ": ";
        if (e.getRound() < 1 || e.getRound() > MAX_ROUND) {
            return invalid(at + "round " + e.getRound() + " is out of range (rounds are 1 to " + MAX_ROUND + ")");
        }
        if (e.getType() == RoundEventType.OPENED) {
            if (e.getBatch() < 1 || e.getBatch() > MAX_BATCH) {
                return invalid(at + "batch " + e.getBatch() + " is out of range (1 to " + MAX_BATCH + ")");
            }
            if (e.getModelVersion() != ModelVersions.computedOnBy(e.getRound())) {
                return invalid(at + "OPENED at model version " + e.getModelVersion() + ", not round - 1");
            }
            if (e.getLastRound() != 0 && (e.getLastRound() < e.getRound() || e.getLastRound() > MAX_ROUND)) {
                return invalid(at + "OPENED with last round " + e.getLastRound() + " (0 for unknown, or the round to "
                        + MAX_ROUND + ")");
            }
        } else if (e.getType() == RoundEventType.OVERDUE) {
            if (e.getModelVersion() != ModelVersions.computedOnBy(e.getRound())) {
                return invalid(at + "OVERDUE at model version " + e.getModelVersion() + ", not round - 1");
            }
        } else if (e.getModelVersion() != ModelVersions.computedOnBy(e.getRound())
                && e.getModelVersion() != ModelVersions.publishedBy(e.getRound())) {
            return invalid(at + "CLOSED at model version " + e.getModelVersion() + ", not round - 1 or round");
        }
        return null;
    }

    /**
     * Why OVERDUE event {@code e} is refused by its job, or null: it must be of the open round
     * (not yet closed) and list, with plausible times, tasks of one worker that it holds in the
     * open round: its own, or backup copies it was sent (a copy that is itself stuck is reported
     * like any assignment). Valid under every policy, with deadlines or not.
     */
    static Refusal overdueProblem(RoundEvent e, JobRuntime job) {
        if (e.getRound() != job.lastOpenedRound() || e.getRound() <= job.lastClosedRound()) {
            return outOfWindow(e, job);
        }
        String at = "job " + e.getJob() + " round " + e.getRound() + ": ";
        if (e.getTimings().isEmpty() || e.getTimings().size() > job.batch()) {
            return timing(
                    at + "OVERDUE with " + e.getTimings().size() + " tasks (1 to the batch of " + job.batch() + ")");
        }
        String worker = e.getTimings().get(0).getWorkerId();
        Set<String> held = job.heldBy(worker);
        for (RoundTiming t : e.getTimings()) {
            if (!t.getWorkerId().equals(worker)) {
                return timing(at + "OVERDUE tasks of two workers, " + worker + " and " + t.getWorkerId());
            }
            if (!ComputeTime.isValid(t.getComputeMs()) || !ComputeTime.isValid(t.getArrivalMs())) {
                return timing(at + "OVERDUE task " + abbreviated(t.getTaskId()) + " with compute_ms " + t.getComputeMs()
                        + " and arrival_ms " + t.getArrivalMs() + " (0 to " + (long) ComputeTime.MAX_MS + " ms)");
            }
            if (!held.contains(t.getTaskId())) {
                return timing(at + "OVERDUE task " + abbreviated(t.getTaskId()) + " is not one worker "
                        + abbreviated(worker) + " holds in the open round (its own or a copy)");
            }
        }
        return null;
    }

    /**
     * Why OPENED event {@code e} is refused by its job, or null. Accepted: the last opened round
     * (its assignments again) and the one after it. The round after need not wait for the last
     * one's CLOSED event to be folded: were that event refused, the job must still go on. Rounds
     * before the last opened one are ignored by the caller.
     */
    static Refusal openProblem(RoundEvent e, JobRuntime job) {
        if (e.getBatch() != job.batch()) {
            return invalid("job " + e.getJob() + " round " + e.getRound() + ": batch " + e.getBatch()
                    + ", the job's is " + job.batch());
        }
        if (e.getRound() != job.lastOpenedRound() && e.getRound() != job.lastOpenedRound() + 1) {
            return outOfWindow(e, job);
        }
        return null;
    }

    /**
     * What a CLOSED event of a round after the last folded one comes to: refused whole, or folded
     * with its good timings while each bad one is named in one dead letter of the event.
     *
     * <p>A timing is judged on its own, and a bad one is left out alone: a worker id that is no
     * worker id, a worker the broker never had a heartbeat of, a {@code compute_ms} outside
     * {@link ComputeTime}, an {@code arrival_ms} neither -1 nor 0 to {@link ComputeTime#MAX_MS}, a
     * COMPLETED or LATE timing of a task not assigned in the round, a CANCELLED one of no task of
     * the job up to the round. One forged or broken timing must not cost the round the statistics
     * of the others: the policy would plan the next rounds without them.
     *
     * <p>The whole event is refused when what is wrong is the event, not one of its timings: a
     * round other than the open one (nothing in it is the open round's); a {@code round_time_ms}
     * out of range (the trainer's clock for the round, which every {@code arrival_ms} is read on,
     * is broken, and there is no timing to leave out); a task COMPLETED twice or more COMPLETED
     * tasks than the batch among the good timings (the trainer keeps the first result of a task
     * and accepts exactly B: an event that breaks this contradicts itself about which results
     * made the batch, so no one timing can be told as the bad one, and folding any of them would
     * observe a batch that never was).
     *
     * @param knownWorker whether a worker id is one the broker has a heartbeat of
     */
    static Close checkClose(RoundEvent e, JobRuntime job, Predicate<String> knownWorker) {
        if (e.getRound() != job.lastOpenedRound()) {
            return Close.refused(outOfWindow(e, job));
        }
        String at = "job " + e.getJob() + " round " + e.getRound() + ": ";
        if (!ComputeTime.isValid(e.getRoundTimeMs())) {
            return Close.refused(timing(at + "round_time_ms " + e.getRoundTimeMs() + " is out of range (0 to "
                    + (long) ComputeTime.MAX_MS + " ms)"));
        }
        Set<String> assigned = job.openRoundTaskIds();
        Set<String> completed = new HashSet<>();
        List<RoundTiming> good = new ArrayList<>(e.getTimings().size());
        List<String> bad = new ArrayList<>();
        for (RoundTiming t : e.getTimings()) {
            String problem = timingProblem(e, t, job, assigned, knownWorker);
            if (problem != null) {
                bad.add(problem);
                continue;
            }
            if (t.getStatus() == TimingStatus.COMPLETED && !completed.add(t.getTaskId())) {
                return Close.refused(timing(at + "task " + abbreviated(t.getTaskId()) + " completed twice"));
            }
            good.add(t);
        }
        if (completed.size() > job.batch()) {
            return Close.refused(
                    timing(at + completed.size() + " completed tasks, more than the batch of " + job.batch()));
        }
        if (bad.isEmpty()) {
            return new Close(null, e, List.of(), at);
        }
        return new Close(null, RoundEvent.newBuilder(e).setTimings(good).build(), List.copyOf(bad), at);
    }

    /**
     * The verdict on a CLOSED event: {@code refusal} (the whole event), else {@code folded} (the
     * event with its good timings only) and {@code bad} (why each left-out timing was left out).
     */
    record Close(Refusal refusal, RoundEvent folded, List<String> bad, String at) {
        /** How many bad timings one letter names in full; the rest are counted. */
        static final int NAMED_IN_LETTER = 8;

        static Close refused(Refusal refusal) {
            return new Close(refusal, null, List.of(), "");
        }

        /** Folded whole: nothing refused, nothing left out. */
        boolean clean() {
            return refusal == null && bad.isEmpty();
        }

        /**
         * The refusal the one dead letter of the event carries, naming its bad timings (the first
         * {@value #NAMED_IN_LETTER}, then how many more): one letter per record, however many
         * timings were left out, so that a forged event of a million timings writes one letter,
         * not a million copies of itself. Null if no timing was left out.
         */
        Refusal letter() {
            if (bad.isEmpty()) {
                return null;
            }
            StringBuilder reason = new StringBuilder(at)
                    .append(bad.size())
                    .append(" of ")
                    .append(bad.size() + folded.getTimings().size())
                    .append(" timings left out, the others folded: ");
            for (int i = 0; i < Math.min(NAMED_IN_LETTER, bad.size()); i++) {
                reason.append(i == 0 ? "" : "; ").append(bad.get(i));
            }
            if (bad.size() > NAMED_IN_LETTER) {
                reason.append("; and ").append(bad.size() - NAMED_IN_LETTER).append(" more");
            }
            return timing(reason.toString());
        }
    }

    /** Why timing {@code t} of CLOSED event {@code e} is left out, naming its worker and task; null if it is good. */
    private static String timingProblem(
            RoundEvent e, RoundTiming t, JobRuntime job, Set<String> assigned, Predicate<String> knownWorker) {
        String task = "task " + abbreviated(t.getTaskId());
        String id = WorkerIds.problem(t.getWorkerId());
        if (id != null) {
            return "timing of " + task + " with a " + id;
        }
        String of = "worker " + t.getWorkerId() + ", " + task + ": ";
        if (!job.knowsWorker(t.getWorkerId()) && !knownWorker.test(t.getWorkerId())) {
            return of + "the worker never sent a heartbeat";
        }
        String compute = ComputeTime.problem("compute_ms", t.getComputeMs());
        if (compute != null) {
            return of + compute;
        }
        if (t.getArrivalMs() != -1 && !ComputeTime.isValid(t.getArrivalMs())) {
            return of + "arrival_ms " + t.getArrivalMs() + " is out of range (-1 for unknown, or 0 to "
                    + (long) ComputeTime.MAX_MS + " ms)";
        }
        if (t.getStatus() == TimingStatus.CANCELLED) {
            return cancelledTaskProblem(e, t.getTaskId(), job)
                    ? of + "cancelled, but no task of this job up to this round"
                    : null;
        }
        if (!assigned.contains(t.getTaskId())) {
            return of + t.getStatus() + " but not assigned in this round";
        }
        return null;
    }

    /** Whether a cancelled task id is no task of this job up to this round: {@code job/r/i}, r <= round, i within any allocation. */
    private static boolean cancelledTaskProblem(RoundEvent e, String taskId, JobRuntime job) {
        // an allocation holds at most B tasks per worker (greedy workers get B each)
        long maxIndex = (long) job.batch() * Math.max(1, job.workerCount());
        return TaskIds.parse(e.getJob(), taskId)
                .map(t -> t.round() < 1 || t.round() > e.getRound() || t.index() >= maxIndex)
                .orElse(true);
    }

    private static String abbreviated(String id) {
        return id.length() <= 200 ? id : id.substring(0, 200) + "...";
    }

    private static Refusal outOfWindow(RoundEvent e, JobRuntime job) {
        return new Refusal(
                Refusal.Kind.ROUND_OUT_OF_WINDOW,
                "job " + e.getJob() + ": " + e.getType() + " round " + e.getRound()
                        + " is not at or next to the open round (last opened " + job.lastOpenedRound()
                        + ", last closed " + job.lastClosedRound() + ")");
    }

    private static Refusal invalid(String reason) {
        return new Refusal(Refusal.Kind.INVALID_ROUND_EVENT, reason);
    }

    private static Refusal timing(String reason) {
        return new Refusal(Refusal.Kind.INVALID_TIMING, reason);
    }
}
