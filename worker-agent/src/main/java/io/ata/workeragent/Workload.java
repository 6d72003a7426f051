package io.ata.workeragent;

import io.ata.schemas.ModelVersion;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * What one task computes: given the model at the round's version, one result (for SGD, one
 * stochastic gradient). The agent knows nothing about the model beyond this interface, so the
 * quadratic test problem ({@link QuadraticWorkload}) and real networks ({@link NetworkWorkload})
 * plug in the same way; {@link AgentWorkload} picks between them by the model.
 *
 * <p>Contract for implementations:
 * <ul>
 *   <li><b>Deterministic per task.</b> The same {@code (model, taskId, seed)} must give the same
 *       output: after a crash or a rebalance another agent re-runs the task, and the trainer drops
 *       the duplicate by task id, so both runs should agree. Derive all randomness from the task
 *       id (e.g. {@link io.ata.workloads.TaskSeed#of(long, String) TaskSeed.of(seed, taskId)}).</li>
 *   <li><b>Thread confinement.</b> The agent calls {@code compute} from its single task thread,
 *       one task at a time; {@link #device()} may be called from any thread.</li>
 *   <li><b>Stopping.</b> A computation that can stop part-way asks {@code stop} whenever it can
 *       (e.g. between micro-batches) and returns empty once it says yes; the agent then reports
 *       the task CANCELLED with the time worked. One that cannot ignores it.</li>
 *   <li><b>Failure.</b> Throw an unchecked exception, with a message that says what is wrong, if
 *       the model cannot be used (wrong shape, unknown encoding, a network or data set other
 *       than the job's); the agent dead-letters the assignment with that reason and carries
 *       on.</li>
 * </ul>
 */
public interface Workload extends AutoCloseable {

    /**
     * Computes task {@code taskId} at {@code model}.
     *
     * @param model the model version the task's round computes at, whole (the agent has put a
     *     chunked version back together)
     * @param taskId the task's id, {@code job/round/index}
     * @param seed the deployment's base seed; mix it with the task id, never use it alone
     * @param stop true once the task should stop (its round closed, or the agent is being stopped)
     * @return the result to publish, or empty if the computation stopped part-way
     */
    Optional<TaskOutput> compute(ModelVersion model, String taskId, long seed, BooleanSupplier stop);

    /**
     * Readies the workload for tasks at {@code model} before a task's clock starts: loads what
     * it needs once (an engine, a job's network, a data set), warms it up, and takes the model's
     * parameters. A task's measured time is then its computation alone: one-time costs counted
     * in the first task would make a fast worker look seconds slow, and a learning policy would
     * stop giving it tasks. By default nothing.
     *
     * @throws RuntimeException as {@link #compute} does, if the model cannot be used
     */
    default void prepare(ModelVersion model) {}

    /** A short name for logs, e.g. {@code quadratic(d=100)}. */
    default String describe() {
        return getClass().getSimpleName();
    }

    /** What computes the tasks, for the heartbeats: by default this JVM's thread on the CPU. */
    default ComputeDevice device() {
        return ComputeDevice.javaThread();
    }

    /** Frees what the workload holds (e.g. native memory of networks); by default nothing. */
    @Override
    default void close() {}
}
