package io.ata.trainer;

import io.ata.schemas.TaskAssignment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which assignments of the open round are overdue: the trainer's half of backup tasks, without
 * Kafka. The broker gives each assignment a deadline from its worker's fitted task time ({@code
 * deadline_ms}, which includes a fixed floor); an assignment is overdue once none of its results
 * has come for that long plus the {@link DeliveryMargin} this trainer measures, since it was seen
 * or since its last result. Its missing tasks are then reported once (the trainer sends them to
 * the broker as an OVERDUE round event, and the broker sends copies elsewhere). The trainer
 * already keeps only the first result of a task id, so a copy is never counted twice.
 *
 * <p>Thread-safe: the training loop reports arrivals and round changes, the watch thread reads
 * assignments and asks what is due.
 */
final class AssignmentDeadlines {
    /** One worker's assignment of the open round, watched. */
    private static final class Watched {
        final String worker;
        final List<String> taskIds;
        final double deadlineMs;
        long lastProgressMs;
        boolean reported;

        Watched(String worker, List<String> taskIds, double deadlineMs, long nowMs) {
            this.worker = worker;
            this.taskIds = List.copyOf(taskIds);
            this.deadlineMs = deadlineMs;
            this.lastProgressMs = nowMs;
        }
    }

    /**
     * The missing tasks of one worker's overdue assignment.
     *
     * @param quietMs     how long no result of it had come
     * @param sinceOpenMs when it was noticed, from the round's open
     */
    record Overdue(String worker, List<String> missing, double quietMs, double sinceOpenMs) {}

    private final String job;
    private long round;
    private long openedAtMs;
    private final List<Watched> watched = new ArrayList<>();
    private final Set<String> arrived = new HashSet<>();
    /** Assignments of a round not opened yet here (the broker can be quicker than the loop). */
    private final List<TaskAssignment> early = new ArrayList<>();

    private final DeliveryMargin margin = new DeliveryMargin();

    AssignmentDeadlines(String job) {
        this.job = job;
    }

    /** Round {@code round} opened at {@code nowMs}: the last one's assignments are forgotten. */
    synchronized void roundOpened(long round, long nowMs) {
        this.round = round;
        this.openedAtMs = nowMs;
        watched.clear();
        arrived.clear();
        List<TaskAssignment> pending = List.copyOf(early);
        early.clear();
        for (TaskAssignment a : pending) {
            assigned(a, nowMs);
        }
    }

    /** An assignment read from the tasks topic at {@code nowMs}. */
    synchronized void assigned(TaskAssignment a, long nowMs) {
        if (!a.getJob().equals(job)
                || !(a.getDeadlineMs() > 0)
                || !a.getBackupOf().isEmpty()) {
            return;
        }
        if (a.getRound() > round) {
            early.removeIf(e -> e.getRound() < a.getRound());
            early.add(a);
            return;
        }
        boolean again =
                watched.stream().anyMatch(w -> w.worker.equals(a.getWorkerId()) && w.taskIds.equals(a.getTaskIds()));
        if (a.getRound() == round && !again) {
            watched.add(new Watched(a.getWorkerId(), a.getTaskIds(), a.getDeadlineMs(), nowMs));
        }
    }

    /**
     * A result of task {@code taskId} of the open round, computed by {@code worker} in {@code
     * computeMs}, reached the trainer at {@code nowMs}. A result of the assigned worker itself,
     * before its assignment was reported, is a sample of the {@link DeliveryMargin}; a copy's is
     * not (its gap is the stuck worker's).
     */
    synchronized void arrived(String taskId, String worker, double computeMs, long nowMs) {
        if (!arrived.add(taskId)) {
            return;
        }
        for (Watched w : watched) {
            if (w.taskIds.contains(taskId)) {
                if (w.worker.equals(worker) && !w.reported) {
                    margin.sample(nowMs - w.lastProgressMs, computeMs);
                }
                w.lastProgressMs = nowMs;
            }
        }
    }

    /** Starts from the delivery margin a previous trainer of the job published ({@link DeliveryMargin#resume}). */
    synchronized void resumeMargin(double ms) {
        margin.resume(ms);
    }

    /** The delivery margin added to every deadline now, in ms. */
    synchronized double marginMs() {
        return margin.ms();
    }

    /** The assignments that became overdue by {@code nowMs}, each reported once. */
    synchronized List<Overdue> due(long nowMs) {
        List<Overdue> out = new ArrayList<>();
        for (Watched w : watched) {
            if (w.reported || nowMs - w.lastProgressMs < w.deadlineMs + margin.ms()) {
                continue;
            }
            List<String> missing =
                    w.taskIds.stream().filter(t -> !arrived.contains(t)).toList();
            w.reported = true;
            if (!missing.isEmpty()) {
                out.add(new Overdue(w.worker, missing, nowMs - w.lastProgressMs, nowMs - openedAtMs));
            }
        }
        return out;
    }

    /** How long until the next assignment may become overdue, in ms; {@code Long.MAX_VALUE} if none is watched. */
    synchronized long untilNextDueMs(long nowMs) {
        long next = Long.MAX_VALUE;
        for (Watched w : watched) {
            if (!w.reported) {
                next = Math.min(
                        next, Math.max(0, w.lastProgressMs + (long) Math.ceil(w.deadlineMs + margin.ms()) - nowMs));
            }
        }
        return next;
    }

    synchronized long round() {
        return round;
    }
}
