package io.ata.broker;

import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The rules a round event must keep, on its own and against its job's state, before the broker
 * lets it touch that state. A well-formed but forged event (a round far ahead, a timing of a task
 * that was never assigned, a compute time of 1e300) would otherwise move the statistics or stop
 * the job; it is refused instead, and the job goes on as if it had never come.
 *
 * <p>Events the broker ignores without a dead letter, because a correct trainer sends them when
 * it restarts, are not decided here: a CLOSED event of a round already folded and an OPENED event
 * of a round before the last opened one.
 */
final class RoundEventRules {
    /** The longest job name: it is part of every task id. */
    static final int MAX_JOB_LENGTH = 255;
    /** The highest round number: task ids and statistics stay far from overflow. */
    static final long MAX_ROUND = Integer.MAX_VALUE;
    /** The largest batch: a round of more tasks is no training round. */
    static final int MAX_BATCH = 1_000_000;
    /** The longest compute or round time accepted, in ms (7 days). */
    static final double MAX_TIME_MS = 7 * 24 * 3600 * 1000.0;

    private RoundEventRules() {}

    /** Why {@code e} is refused on its own (before its job is looked at), or null. */
    static Refusal problem(RoundEvent e) {
        if (e.getJob().isBlank()) {
            return invalid("round event without job");
        }
        if (e.getJob().length() > MAX_JOB_LENGTH || e.getJob().chars().anyMatch(Character::isISOControl)) {
            return invalid("job name of " + e.getJob().length() + " characters or with a control character (at most "
                    + MAX_JOB_LENGTH + ")");
        }
        String at = "job " + e.getJob() + " round " + e.getRound() + ": ";
        if (e.getRound() < 1 || e.getRound() > MAX_ROUND) {
            return invalid(at + "round " + e.getRound() + " is out of range (rounds are 1 to " + MAX_ROUND + ")");
        }
        if (e.getType() == RoundEventType.OPENED) {
            if (e.getBatch() < 1 || e.getBatch() > MAX_BATCH) {
                return invalid(at + "batch " + e.getBatch() + " is out of range (1 to " + MAX_BATCH + ")");
            }
            if (e.getModelVersion() != e.getRound() - 1) {
                return invalid(at + "OPENED at model version " + e.getModelVersion() + ", not round - 1");
            }
        } else if (e.getType() == RoundEventType.OVERDUE) {
            if (e.getModelVersion() != e.getRound() - 1) {
                return invalid(at + "OVERDUE at model version " + e.getModelVersion() + ", not round - 1");
            }
        } else if (e.getModelVersion() != e.getRound() - 1 && e.getModelVersion() != e.getRound()) {
            return invalid(at + "CLOSED at model version " + e.getModelVersion() + ", not round - 1 or round");
        }
        return null;
    }

    /**
     * Why OVERDUE event {@code e} is refused by its job, or null: it must be of the open round
     * (not yet closed) and list, with plausible times, tasks of one worker (which of them are
     * that worker's in the allocation is the job's to check).
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
        for (RoundTiming t : e.getTimings()) {
            if (!t.getWorkerId().equals(worker)) {
                return timing(at + "OVERDUE tasks of two workers, " + worker + " and " + t.getWorkerId());
            }
            if (!(t.getComputeMs() >= 0 && t.getComputeMs() <= MAX_TIME_MS)
                    || !(t.getArrivalMs() >= 0 && t.getArrivalMs() <= MAX_TIME_MS)) {
                return timing(at + "OVERDUE task " + abbreviated(t.getTaskId()) + " with compute_ms " + t.getComputeMs()
                        + " and arrival_ms " + t.getArrivalMs() + " (0 to " + MAX_TIME_MS + ")");
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
     * Why CLOSED event {@code e} of a round after the last folded one is refused by its job, or
     * null. Only the open round can close, with timings of that job's tasks: completed and late
     * ones of the round's own tasks, cancelled ones of it or an earlier round.
     *
     * @param knownWorker whether a worker id is one the broker has a heartbeat of
     */
    static Refusal closeProblem(RoundEvent e, JobRuntime job, Predicate<String> knownWorker) {
        if (e.getRound() != job.lastOpenedRound()) {
            return outOfWindow(e, job);
        }
        String at = "job " + e.getJob() + " round " + e.getRound() + ": ";
        if (!(e.getRoundTimeMs() >= 0 && e.getRoundTimeMs() <= MAX_TIME_MS)) {
            return timing(at + "round_time_ms " + e.getRoundTimeMs() + " is out of range (0 to " + MAX_TIME_MS + ")");
        }
        Set<String> assigned = job.openRoundTaskIds();
        Set<String> completed = new HashSet<>();
        for (RoundTiming t : e.getTimings()) {
            Refusal problem = timingProblem(at, e, t, job, assigned, knownWorker);
            if (problem != null) {
                return problem;
            }
            if (t.getStatus() == TimingStatus.COMPLETED && !completed.add(t.getTaskId())) {
                return timing(at + "task " + t.getTaskId() + " completed twice");
            }
        }
        if (completed.size() > job.batch()) {
            return timing(at + completed.size() + " completed tasks, more than the batch of " + job.batch());
        }
        return null;
    }

    private static Refusal timingProblem(
            String at,
            RoundEvent e,
            RoundTiming t,
            JobRuntime job,
            Set<String> assigned,
            Predicate<String> knownWorker) {
        String id = WorkerIds.problem(t.getWorkerId());
        if (id != null) {
            return timing(at + "a timing with a " + id);
        }
        if (!job.knowsWorker(t.getWorkerId()) && !knownWorker.test(t.getWorkerId())) {
            return timing(at + "timing of worker " + t.getWorkerId() + ", which never sent a heartbeat");
        }
        if (!(t.getComputeMs() >= 0 && t.getComputeMs() <= MAX_TIME_MS)) {
            return timing(at + "timing of task " + abbreviated(t.getTaskId()) + " has compute_ms " + t.getComputeMs()
                    + " (0 to " + MAX_TIME_MS + ")");
        }
        if (t.getArrivalMs() != -1 && !(t.getArrivalMs() >= 0 && t.getArrivalMs() <= MAX_TIME_MS)) {
            return timing(at + "timing of task " + abbreviated(t.getTaskId()) + " has arrival_ms " + t.getArrivalMs()
                    + " (-1 for unknown, or 0 to " + MAX_TIME_MS + ")");
        }
        if (t.getStatus() == TimingStatus.CANCELLED) {
            return cancelledTaskProblem(at, e, t.getTaskId(), job);
        }
        if (!assigned.contains(t.getTaskId())) {
            return timing(at + "task " + abbreviated(t.getTaskId()) + " was not assigned in this round");
        }
        return null;
    }

    /** A cancelled task is of this round or an earlier one: {@code job/round/index}, index within any allocation. */
    private static Refusal cancelledTaskProblem(String at, RoundEvent e, String taskId, JobRuntime job) {
        String prefix = e.getJob() + "/";
        long[] roundAndIndex = taskId.startsWith(prefix) ? roundAndIndex(taskId.substring(prefix.length())) : null;
        // an allocation holds at most B tasks per worker (greedy workers get B each)
        long maxIndex = (long) job.batch() * Math.max(1, job.workerCount());
        if (roundAndIndex == null
                || roundAndIndex[0] < 1
                || roundAndIndex[0] > e.getRound()
                || roundAndIndex[1] >= maxIndex) {
            return timing(at + "cancelled task " + abbreviated(taskId) + " is no task of this job up to this round");
        }
        return null;
    }

    /** {@code round/index} as two non-negative numbers; null if it is not that. */
    private static long[] roundAndIndex(String rest) {
        int slash = rest.indexOf('/');
        if (slash < 0) {
            return null;
        }
        try {
            long round = Long.parseLong(rest.substring(0, slash));
            long index = Long.parseLong(rest.substring(slash + 1));
            return index < 0 ? null : new long[] {round, index};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String abbreviated(String taskId) {
        return taskId.length() <= 200 ? taskId : taskId.substring(0, 200) + "...";
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
