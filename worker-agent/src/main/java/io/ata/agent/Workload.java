package io.ata.agent;

import io.ata.schemas.ModelVersion;

/**
 * What one task computes: given the model at the round's version, one result (for SGD, one
 * stochastic gradient). The agent knows nothing about the model beyond this interface, so the
 * quadratic test problem and real models (DJL, a later issue) plug in the same way.
 *
 * <p>Contract for implementations:
 * <ul>
 *   <li><b>Deterministic per task.</b> The same {@code (model, taskId, seed)} must give the same
 *       output: after a crash or a rebalance another agent re-runs the task, and the trainer drops
 *       the duplicate by task id, so both runs should agree. Derive all randomness from
 *       {@link io.ata.workload.TaskSeed#of(long, String) TaskSeed.of(seed, taskId)}.</li>
 *   <li><b>Thread confinement.</b> The agent calls {@code compute} from its single task thread,
 *       one task at a time.</li>
 *   <li><b>Failure.</b> Throw an unchecked exception if the model cannot be used (wrong shape,
 *       unknown encoding); the agent dead-letters the assignment and carries on.</li>
 * </ul>
 */
public interface Workload {

    /**
     * Computes task {@code taskId} at {@code model}.
     *
     * @param model the model version the task's round computes at
     * @param taskId the task's id, {@code job/round/index}
     * @param seed the deployment's base seed; mix it with the task id, never use it alone
     * @return the result to publish
     */
    TaskOutput compute(ModelVersion model, String taskId, long seed);

    /** A short name for logs, e.g. {@code quadratic(d=100)}. */
    default String describe() {
        return getClass().getSimpleName();
    }
}
