package io.ata.agent;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What an agent has done, for logs, tests and a later metrics endpoint. Counters only grow.
 * Thread-safe: the task thread and the model thread update it, anyone reads it.
 */
public final class AgentMetrics {

    /** How many recent compute times {@link #recentComputeMs()} keeps. */
    public static final int RECENT = 64;

    private final AtomicLong tasksRun = new AtomicLong();
    private final AtomicLong assignmentsCompleted = new AtomicLong();
    private final AtomicLong assignmentsSkippedStale = new AtomicLong();
    private final AtomicLong assignmentsStoppedRoundClosed = new AtomicLong();
    private final AtomicLong tasksNotRun = new AtomicLong();
    private final AtomicLong tasksCancelled = new AtomicLong();
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final Deque<Double> recentComputeMs = new ArrayDeque<>();

    /** Tasks computed and published (their transaction committed). */
    public long tasksRun() {
        return tasksRun.get();
    }

    /** Assignments whose tasks all ran. */
    public long assignmentsCompleted() {
        return assignmentsCompleted.get();
    }

    /** Assignments skipped without running a task: their round had already closed. */
    public long assignmentsSkippedStale() {
        return assignmentsSkippedStale.get();
    }

    /** Assignments stopped part-way because their round closed meanwhile. */
    public long assignmentsStoppedRoundClosed() {
        return assignmentsStoppedRoundClosed.get();
    }

    /** Tasks not run because their round closed (skipped or stopped assignments). */
    public long tasksNotRun() {
        return tasksNotRun.get();
    }

    /** Tasks stopped part-way because their round closed (GTA's discarded work in flight). */
    public long tasksCancelled() {
        return tasksCancelled.get();
    }

    /** Records sent to the dead-letter topic, from the tasks and the model topic. */
    public long deadLetters() {
        return deadLetters.get();
    }

    /** Assignments given back to the topic after a transient failure, to run again. */
    public long retries() {
        return retries.get();
    }

    /** The compute time of the last task run, milliseconds, or {@code NaN} before the first. */
    public synchronized double lastComputeMs() {
        Double last = recentComputeMs.peekLast();
        return last == null ? Double.NaN : last;
    }

    /** The compute times of the last (at most {@value #RECENT}) tasks run, oldest first. */
    public synchronized List<Double> recentComputeMs() {
        return new ArrayList<>(recentComputeMs);
    }

    void taskRun(double computeMs) {
        tasksRun.incrementAndGet();
        synchronized (this) {
            if (recentComputeMs.size() == RECENT) {
                recentComputeMs.removeFirst();
            }
            recentComputeMs.addLast(computeMs);
        }
    }

    void assignmentCompleted() {
        assignmentsCompleted.incrementAndGet();
    }

    void assignmentSkippedStale(int tasks) {
        assignmentsSkippedStale.incrementAndGet();
        tasksNotRun.addAndGet(tasks);
    }

    void assignmentStoppedRoundClosed(int tasksLeft) {
        assignmentsStoppedRoundClosed.incrementAndGet();
        tasksNotRun.addAndGet(tasksLeft);
    }

    void taskCancelled() {
        tasksCancelled.incrementAndGet();
    }

    void deadLetter() {
        deadLetters.incrementAndGet();
    }

    void retry() {
        retries.incrementAndGet();
    }

    @Override
    public String toString() {
        return "tasks run " + tasksRun() + ", assignments completed " + assignmentsCompleted()
                + ", skipped (stale) " + assignmentsSkippedStale() + ", stopped (round closed) "
                + assignmentsStoppedRoundClosed() + ", tasks cancelled " + tasksCancelled() + ", tasks not run "
                + tasksNotRun()
                + ", dead letters " + deadLetters() + ", retries " + retries();
    }
}
