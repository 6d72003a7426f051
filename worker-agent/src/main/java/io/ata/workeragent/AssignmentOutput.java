package io.ata.workeragent;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;

/**
 * The effects of handling one assignment record, as the {@link AssignmentRunner} decides them.
 * Each call is atomic: with Kafka ({@link TransactionalOutput}) it is one transaction, so either
 * all of its records (and the offset commit, where there is one) become visible, or none.
 *
 * <p>"Marks the assignment done" means committing the consumer offset past the assignment record,
 * so the consumer group never delivers it again. Until then, a crash re-delivers the whole
 * assignment to the partition's next owner.
 *
 * <p>An interface so the decision logic is tested against an in-memory recorder, without Kafka.
 */
public interface AssignmentOutput {

    /**
     * Publishes one task's result and timing; if {@code completesAssignment} (the last task), also
     * marks the assignment done.
     */
    void publishTask(TaskResult result, TaskTiming timing, boolean completesAssignment);

    /** Marks the assignment done without publishing anything: its round closed. */
    void markDone();

    /** Sends the assignment record to the dead-letter topic and marks it done. */
    void deadLetter(DeadLetter letter);

    /**
     * Holds the assignment until its model version comes, without publishing anything or marking
     * it done: the agent goes on with other records meanwhile, and hands it back to
     * {@link AssignmentRunner#runParked} once the version is there (or passed). Until it is done,
     * its partition's offset is not committed past it.
     */
    void park(TaskAssignment assignment);
}
