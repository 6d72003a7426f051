package io.ata.workeragent;

import io.ata.schemas.TaskAssignment;

/**
 * Told when a valid assignment reaches the agent, before any task runs, and when its tasks start
 * (its model version is there), with the monotonic time ({@link System#nanoTime}) of each. The
 * live benchmark measures the control overhead per round with it; it must return quickly.
 */
@FunctionalInterface
public interface AssignmentListener {
    AssignmentListener NONE = (assignment, nanoTime) -> {};

    /** The assignment arrived: decoded and valid, not yet run (it may wait or be parked for its model). */
    void received(TaskAssignment assignment, long nanoTime);

    /**
     * The assignment's first task starts: the assignment and its model version are both here.
     * Under pipelined allocation this comes later than {@link #received}, when the version does.
     */
    default void started(TaskAssignment assignment, long nanoTime) {}
}
