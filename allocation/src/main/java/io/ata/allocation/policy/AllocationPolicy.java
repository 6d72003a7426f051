package io.ata.allocation.policy;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.RoundPlan;
import io.ata.allocation.TaskDeadlines;
import java.util.Optional;

/**
 * A task-allocation policy: before each round it says which workers get how many tasks; after
 * the round it is told what happened. Policies hold no Kafka and no clock, so the simulator, the
 * timing-log replay and the live broker drive the very same objects. Membership (which workers
 * exist and are active) and the statistics come from the {@code WorkerStats} the policy was
 * created with; tie-breaking randomness is derived from the seed and the round
 * ({@code RoundRandom}), so a policy rebuilt from its statistics continues exactly.
 */
public interface AllocationPolicy {

    /** Short name used on the command line and in reports, e.g. {@code ata-empirical}. */
    String name();

    /** Human-readable parameters (constants, convention) so every result says how it was made. */
    String describe();

    /** The plan for round {@code round} (1-based). Valid until the next call. */
    RoundPlan plan(long round);

    /**
     * Learns from the round just planned, beyond the statistics: the caller (simulator, replay or
     * broker) has already folded the outcome into the shared {@code WorkerStats}, so that every
     * driver updates the statistics the same way, in one place.
     */
    void observe(RoundOutcome outcome);

    /**
     * The deadlines the last plan's round runs under, for policies that use backup tasks: whoever
     * runs the round sends a backup copy of an overdue task to another worker. Empty: every
     * allocated task is waited for.
     */
    default Optional<TaskDeadlines> deadlines() {
        return Optional.empty();
    }

    /**
     * A worker was added to the statistics (a live fleet growing). {@code knownMean} is its
     * configured mean task time, NaN if none; only the oracle policies use it.
     */
    default void workerAdded(int worker, double knownMean) {}

    /**
     * What the policy has learned beyond the statistics (e.g. an estimated {@code eta}), in its
     * own versioned encoding, for checkpoints; empty when the statistics are all it needs.
     */
    default Optional<PolicyState> learnedState() {
        return Optional.empty();
    }

    /**
     * Restores {@link #learnedState()} into a freshly built policy over the restored statistics.
     *
     * @throws IllegalArgumentException if the state was written by another policy, in a version
     *     this policy cannot read, or this policy keeps no learned state
     */
    default void restoreLearnedState(PolicyState state) {
        throw new IllegalArgumentException(
                name() + " keeps no learned state; cannot restore the state of policy '" + state.policy() + "'");
    }

    /**
     * {@link #learnedState()} cut into a shared part and one part per worker, so that a store
     * rewrites only the parts that changed. Present only when the learned state has per-worker
     * parts; empty otherwise, and the caller stores {@link #learnedState()} whole.
     *
     * <p>The contract a store relies on:
     * <ul>
     *   <li>{@code workers().size()} is the statistics' size at the time of the call;</li>
     *   <li>a worker's part is byte-for-byte the same as long as nothing about that worker
     *       changed: it holds no global counters and nothing of other workers, so comparing
     *       parts tells what to rewrite;</li>
     *   <li>{@link #restoreSplitLearnedState} of it, into a freshly built policy over the restored
     *       statistics, leaves that policy exactly as {@code restoreLearnedState(learnedState())}
     *       would: the same later plans, the same {@code learnedState()} bytes.</li>
     * </ul>
     */
    default Optional<SplitPolicyState> splitLearnedState() {
        return Optional.empty();
    }

    /**
     * {@link #splitLearnedState()} as a view read one part at a time, with a count of each
     * worker's changes: present exactly when the split state is. A worker's count grows whenever
     * its part changes, so a store compares counts, not parts, and builds the parts of the workers
     * a round event touched only. By default a copy of the split state whose every count has moved
     * ({@link LearnedParts#copyOf}): a store then compares every part, as it must for a policy that
     * does not count; a policy that counts returns a live view, and its split state is that view
     * copied out.
     */
    default Optional<LearnedParts> learnedParts() {
        return splitLearnedState().map(LearnedParts::copyOf);
    }

    /**
     * Restores {@link #splitLearnedState()} into a freshly built policy over the restored
     * statistics. Refuses, restoring nothing, whatever {@link #restoreLearnedState} refuses (another
     * policy's state, an unknown version, malformed shared or per-worker bytes) and a number of
     * worker parts other than the statistics' size.
     *
     * @throws IllegalArgumentException if the state cannot be restored, or this policy does not
     *     split its learned state per worker
     */
    default void restoreSplitLearnedState(SplitPolicyState state) {
        throw SplitPolicyState.notSplitBy(name());
    }
}
