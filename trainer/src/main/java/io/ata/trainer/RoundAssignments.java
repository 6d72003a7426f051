package io.ata.trainer;

import io.ata.schemas.TaskAssignment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The open round's assignments as the trainer reads them from the {@code tasks} topic, without
 * Kafka: who may deliver each task, and which assignments, or the round as a whole, need to be
 * driven on.
 *
 * <p><b>Who may deliver a task.</b> A result counts only for a task the broker assigned to the
 * worker it names ({@code assigned_worker_id}, or its {@code worker_id}), as its own task or as a
 * backup copy ({@link #ownership}). The watch thread reads the assignments while the training loop
 * reads results, so a result may arrive before the watch has read its assignment; its ownership is
 * then {@link Ownership#UNKNOWN} and the loop holds the result until the watch has read the topic
 * up to a time after the result arrived ({@link #requestCatchUp}, {@link #caughtUp}): an agent
 * reads its assignment, committed, before it computes, so the assignment is there by then, or was
 * never made. Where the trainer cannot read the {@code tasks} topic at all (it does not exist),
 * ownership is not checked.
 *
 * <p><b>Deadlines.</b> Every assignment, a copy's too, is overdue once none of its results has
 * come for its deadline plus the {@link DeliveryMargin} this trainer measures, since it was seen
 * or since its last result: the broker's {@code deadline_ms} (the worker's fitted task time and a
 * floor) where the policy gives one, else the job's {@link StallBound}. Its missing tasks are then
 * reported (the trainer asks the broker for backup copies), and again after twice as long, and so
 * on, while they stay missing. The trainer keeps only the first result of a task id, so a copy is
 * never counted twice.
 *
 * <p><b>Stalls.</b> A round open for longer than the {@link StallBound} is stalled ({@link
 * #stall}); the trainer then re-drives it (every missing task backed up; where no assignment of it
 * is known, its OPENED event sent again), and again after twice as long, and so on.
 *
 * <p>Thread-safe: the training loop reports results, round changes and catch-up requests, the watch
 * thread reads assignments and asks what is due.
 */
final class RoundAssignments {
    /** Whether a worker may deliver a task of the open round. */
    enum Ownership {
        /** The task was assigned to the worker, as its own or as a copy. */
        ASSIGNED,
        /** The task was not assigned to the worker: the watch read every assignment made before the result came. */
        NOT_ASSIGNED,
        /** Not known yet: the watch has not read every assignment made before the result came. */
        UNKNOWN
    }

    /** The longest wait between two reports of the same assignment, or two re-drives of a stall. */
    static final double MAX_BACKOFF_MS = 60_000;

    /** One worker's assignment of the open round (its own tasks, or a copy), watched. */
    private static final class Watched {
        final String worker;
        final List<String> taskIds;
        /** The broker's deadline; 0: none (the stall bound applies). */
        final double deadlineMs;

        final boolean copy;
        long lastProgressMs;
        /** When it was last reported overdue; meaningful once {@code reports > 0}. */
        long lastReportMs;

        int reports;
        /** How many of its tasks have no result yet: kept as results come, not counted each check. */
        int missing;

        Watched(String worker, List<String> taskIds, double deadlineMs, boolean copy, long nowMs) {
            this.worker = worker;
            this.taskIds = taskIds.stream().distinct().toList();
            this.deadlineMs = deadlineMs;
            this.copy = copy;
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

    /**
     * The open round, stalled.
     *
     * @param round           the round
     * @param openMs          how long it has been open (since it opened here)
     * @param assignments     how many of its assignments are known
     * @param missing         its missing tasks, by the worker holding them (its own tasks or a copy)
     * @param arrived         how many of its tasks have a result
     * @param times           how many times it has been found stalled, this one included
     */
    record Stall(
            long round, double openMs, int assignments, Map<String, List<String>> missing, int arrived, int times) {
        /** Whether no assignment of the round is known. */
        boolean noAssignments() {
            return assignments == 0;
        }

        /**
         * Whether the broker is asked to send the round's assignments again: none is known, no
         * result of it came (its assignments, or its results, are gone), or it stalled before.
         */
        boolean reopen() {
            return assignments == 0 || arrived == 0 || times > 1;
        }
    }

    private final String job;
    private long round;
    private long openedAtMs;
    private final List<Watched> watched = new ArrayList<>();
    /**
     * The same assignments by task id, and by worker and tasks: a round of {@code B} tasks takes
     * {@code B} results and {@code B} assignments, and a scan of every assignment for each made a
     * round cost {@code B^2} (at 1,024 tasks, a million steps under the lock the watch shares).
     */
    private final Map<String, List<Watched>> watchedByTask = new HashMap<>();

    private final Set<AssignmentKey> watchedKeys = new HashSet<>();

    /** An assignment as the broker may send it again: the same worker, the same tasks. */
    private record AssignmentKey(String worker, List<String> taskIds) {}
    /** Per task id of the open round, the workers it was assigned to (own or copy). */
    private final Map<String, Set<String>> holders = new HashMap<>();

    private final Set<String> arrived = new HashSet<>();
    /**
     * Assignments of a round not opened yet here: the broker can be quicker than the loop. Under
     * pipelined allocation the watch can read two rounds' worth before the loop marks the first
     * of them open (round {@code k+1}'s, planned ahead when {@code k} opened, and {@code k+2}'s,
     * planned when the broker read {@code k+1}'s OPENED), so every round up to {@link
     * #EARLY_ROUNDS} ahead is kept.
     */
    private final List<TaskAssignment> early = new ArrayList<>();

    /** How many rounds past the open one early assignments are kept for; further ahead they are dropped. */
    static final int EARLY_ROUNDS = 2;

    private final DeliveryMargin margin = new DeliveryMargin();
    private final StallBound stallBound;
    private int stalls;
    /** When the open round was last found stalled; meaningful once {@code stalls > 0}. */
    private long lastStallMs;

    /** Whether the tasks topic can be read; until the watch knows, assume so (hold rather than accept). */
    private boolean tasksReadable = true;
    /** The latest result read time (System.nanoTime) the loop needs the watch to have caught up to. */
    private long catchUpRequestedNanos = Long.MIN_VALUE;
    /** The watch has read every assignment committed before this time (System.nanoTime). */
    private long caughtUpNanos = Long.MIN_VALUE;

    /** A job whose tasks need no engine loaded: the quadratic problem. */
    RoundAssignments(String job) {
        this(job, StallBound.WARM_UP_MS);
    }

    /** @param warmUpMs the stall bound until the job has a round time */
    RoundAssignments(String job, double warmUpMs) {
        this.job = job;
        this.stallBound = new StallBound(warmUpMs);
    }

    /** Round {@code round} opened at {@code nowMs}: the last one's assignments are forgotten. */
    synchronized void roundOpened(long round, long nowMs) {
        this.round = round;
        this.openedAtMs = nowMs;
        watched.clear();
        watchedByTask.clear();
        watchedKeys.clear();
        holders.clear();
        arrived.clear();
        stalls = 0;
        List<TaskAssignment> pending =
                early.stream().filter(a -> a.getRound() == round).toList();
        early.removeIf(a -> a.getRound() <= round);
        for (TaskAssignment a : pending) {
            assigned(a, nowMs);
        }
    }

    /** A round closed after {@code roundTimeMs}: a sample of the {@link StallBound}. */
    synchronized void roundClosed(double roundTimeMs) {
        stallBound.roundClosed(roundTimeMs);
    }

    /** An assignment read from the tasks topic at {@code nowMs}. */
    synchronized void assigned(TaskAssignment a, long nowMs) {
        if (!a.getJob().equals(job) || a.getTaskIds().isEmpty()) {
            return;
        }
        if (a.getRound() > round) {
            if (a.getRound() <= round + EARLY_ROUNDS) {
                early.add(a);
            }
            return;
        }
        if (a.getRound() != round) {
            return;
        }
        if (!watchedKeys.add(new AssignmentKey(a.getWorkerId(), List.copyOf(a.getTaskIds())))) {
            return; // the broker sent the round's assignments again
        }
        double deadline = a.getDeadlineMs() > 0 && Double.isFinite(a.getDeadlineMs()) ? a.getDeadlineMs() : 0;
        Watched w = new Watched(
                a.getWorkerId(), a.getTaskIds(), deadline, !a.getBackupOf().isEmpty(), nowMs);
        watched.add(w);
        for (String task : w.taskIds) {
            watchedByTask.computeIfAbsent(task, t -> new ArrayList<>(1)).add(w);
            holders.computeIfAbsent(task, t -> new LinkedHashSet<>()).add(w.worker);
            if (!arrived.contains(task)) {
                w.missing++;
            }
        }
    }

    /**
     * Whether {@code worker} may deliver task {@code taskId} of the open round, for a result read at
     * {@code readNanos} (System.nanoTime). A worker the watch has not seen the task assigned to is
     * {@link Ownership#NOT_ASSIGNED} only once the watch has caught up to that time: a backup copy
     * is assigned after the task's first assignment, so reading the first proves nothing about the
     * copy (a lagging watch refused honest copies' results). Always {@link Ownership#ASSIGNED} where
     * the tasks topic cannot be read.
     */
    synchronized Ownership ownership(String taskId, String worker, long readNanos) {
        if (!tasksReadable || holders.getOrDefault(taskId, Set.of()).contains(worker)) {
            return Ownership.ASSIGNED;
        }
        return caughtUpNanos >= readNanos ? Ownership.NOT_ASSIGNED : Ownership.UNKNOWN;
    }

    /** The workers task {@code taskId} of the open round was assigned to, in the order read. */
    synchronized List<String> holdersOf(String taskId) {
        return List.copyOf(holders.getOrDefault(taskId, Set.of()));
    }

    /** The watch found the tasks topic readable, or not (it does not exist). */
    synchronized void tasksReadable(boolean readable) {
        tasksReadable = readable;
    }

    /** The loop holds a result read at {@code readNanos} (System.nanoTime) until the watch has caught up to it. */
    synchronized void requestCatchUp(long readNanos) {
        catchUpRequestedNanos = Math.max(catchUpRequestedNanos, readNanos);
    }

    /**
     * For the watch: the time it must catch up to (it then reads the topic to the end offsets it
     * asks for after that time); empty if nothing waits.
     */
    synchronized Optional<Long> catchUpWanted() {
        return catchUpRequestedNanos > caughtUpNanos ? Optional.of(catchUpRequestedNanos) : Optional.empty();
    }

    /** The watch has read every assignment committed before {@code asOfNanos}. */
    synchronized void caughtUp(long asOfNanos) {
        caughtUpNanos = Math.max(caughtUpNanos, asOfNanos);
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
        for (Watched w : watchedByTask.getOrDefault(taskId, List.of())) {
            w.missing--;
            if (w.worker.equals(worker) && w.reports == 0 && !w.copy) {
                margin.sample(nowMs - w.lastProgressMs, computeMs);
            }
            w.lastProgressMs = nowMs;
        }
    }

    /** Starts from the delivery margin a previous trainer of the job published ({@link DeliveryMargin#resume}). */
    synchronized void resumeMargin(double ms) {
        margin.resume(ms);
    }

    /** Starts from the median round time a previous trainer of the job published ({@link StallBound#resume}). */
    synchronized void resumeStallBound(double medianRoundMs) {
        stallBound.resume(medianRoundMs);
    }

    /** The delivery margin added to every deadline now, in ms. */
    synchronized double marginMs() {
        return margin.ms();
    }

    /** The median of the job's recent round times, in ms; NaN before it has one. */
    synchronized double medianRoundMs() {
        return stallBound.medianRoundMs();
    }

    /** The stall bound now, in ms. */
    synchronized double stallBoundMs() {
        return stallBound.ms();
    }

    /**
     * When something due {@code firstMs} after {@code startMs} is reported the {@code k+1}-th time:
     * at {@code firstMs}, twice that, four times, and so on after the start, until the wait
     * reaches {@link #MAX_BACKOFF_MS}; from then on once every {@link #MAX_BACKOFF_MS} after the
     * last report. (Measured from the start, a capped wait was over at once and every check reported
     * again: a trainer re-drove one round 1,480 times under load.)
     */
    private long nextMs(long startMs, double firstMs, int k, long lastReportMs) {
        double wait = firstMs * (1L << Math.min(k, 20));
        long next = wait < MAX_BACKOFF_MS
                ? startMs + (long) Math.ceil(wait)
                : (k == 0 ? startMs : Math.max(startMs, lastReportMs)) + (long) MAX_BACKOFF_MS;
        return next + (long) Math.ceil(margin.ms());
    }

    /** When {@code w} is reported (again) if nothing of it comes; {@code stallMs}: the stall bound now. */
    private long nextReportMs(Watched w, double stallMs) {
        double deadline = w.deadlineMs > 0 ? w.deadlineMs : stallMs;
        return nextMs(w.lastProgressMs, deadline, w.reports, w.lastReportMs);
    }

    /** When the open round is found stalled (again) if it does not close. */
    private long nextStallMs() {
        return nextMs(openedAtMs, stallBound.ms(), stalls, lastStallMs);
    }

    /**
     * The assignments that became overdue by {@code nowMs}, with their missing tasks: each reported
     * once its deadline passed, then again after twice as long, and so on.
     */
    synchronized List<Overdue> due(long nowMs) {
        List<Overdue> out = new ArrayList<>();
        double stallMs = stallBound.ms();
        for (Watched w : watched) {
            if (w.missing == 0 || nowMs < nextReportMs(w, stallMs)) {
                continue;
            }
            List<String> missing = missing(w);
            out.add(new Overdue(w.worker, missing, nowMs - w.lastProgressMs, nowMs - openedAtMs));
            w.reports++;
            w.lastReportMs = nowMs;
        }
        return out;
    }

    private List<String> missing(Watched w) {
        return w.taskIds.stream().filter(t -> !arrived.contains(t)).toList();
    }

    /**
     * The open round, if it has been open longer than the stall bound (then twice as long, and so
     * on, each time it is found stalled), with the missing tasks of every assignment known.
     */
    synchronized Optional<Stall> stall(long nowMs) {
        if (round == 0) {
            return Optional.empty();
        }
        if (nowMs < nextStallMs()) {
            return Optional.empty();
        }
        double openMs = nowMs - openedAtMs;
        stalls++;
        lastStallMs = nowMs;
        Map<String, List<String>> missing = new HashMap<>();
        for (Watched w : watched) {
            if (w.missing > 0) {
                missing.put(w.worker, missing(w));
            }
        }
        return Optional.of(new Stall(round, openMs, watched.size(), missing, arrived.size(), stalls));
    }

    /** How long until the next assignment may become overdue or the round stalled, in ms. */
    synchronized long untilNextDueMs(long nowMs) {
        long next = Long.MAX_VALUE;
        double stallMs = stallBound.ms();
        for (Watched w : watched) {
            if (w.missing > 0) {
                next = Math.min(next, Math.max(0, nextReportMs(w, stallMs) - nowMs));
            }
        }
        if (round > 0) {
            next = Math.min(next, Math.max(0, nextStallMs() - nowMs));
        }
        return next;
    }

    synchronized long round() {
        return round;
    }
}
