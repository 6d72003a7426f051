package io.ata.workeragent;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a {@link SupervisedAgent} runs and starts over: a {@link WorkerAgent} (one worker) or a
 * {@link MultiDeviceAgent} (a worker per device over one consumer).
 */
public interface Agent {

    /** The agent's id: its consumer's static member id and its log lines' name. */
    String workerId();

    /** The ids of its workers, as the broker knows them: its own id, for a single agent. */
    default List<String> workerIds() {
        return List.of(workerId());
    }

    /** Runs the agent on threads of its own; returns at once. */
    void start();

    /** Waits until the agent has stopped; {@code true} if it has. */
    boolean awaitStopped(Duration timeout);

    /** Why the agent stopped on its own, if it did. */
    Optional<Throwable> failure();

    /** Clean shutdown: running tasks finish, the consumer leaves, the workers say LEAVING. */
    void close(Duration timeout);

    /** A crash, for tests: nothing more is committed or said. */
    void kill();

    /** Whether the agent runs (started and not yet stopped). */
    boolean isRunning();
}
