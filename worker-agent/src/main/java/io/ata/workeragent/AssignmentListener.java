package io.ata.workeragent;

import io.ata.schemas.TaskAssignment;

/**
 * Told when a valid assignment reaches the agent, before any task runs, with the monotonic time
 * ({@link System#nanoTime}) of arrival. The live benchmark measures the control overhead per
 * round with it; it must return quickly.
 */
@FunctionalInterface
public interface AssignmentListener {
    AssignmentListener NONE = (assignment, nanoTime) -> {};

    void received(TaskAssignment assignment, long nanoTime);
}
