package io.ata.allocation.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * A policy's learned state per worker, read in place: the parts {@link SplitPolicyState} copies,
 * one at a time, each with a count of its worker's changes. A store that rewrites only the workers
 * whose part changed keeps the count it wrote a part at, and builds a part again only once the
 * count moved: building every worker's part at every round event cost a thousand-worker job more
 * than planning its round.
 *
 * <p>A live view: what it returns follows the policy as the policy plans, observes and restores.
 */
public interface LearnedParts {

    /** How many workers there are parts of: the statistics' size now. */
    int workers();

    /** What belongs to no worker: {@link SplitPolicyState#shared()}. */
    PolicyState shared();

    /** Worker {@code w}'s part, byte for byte what {@link SplitPolicyState#workers()} holds at {@code w}. */
    byte[] worker(int w);

    /**
     * A count that grows at every change of worker {@code w}'s part (it may grow without one): as
     * long as it stays the same, so does the part.
     */
    long changes(int w);

    /**
     * A view of {@code split} as it is, whose counts have all moved since any earlier view's: for a
     * policy that does not count its workers' changes, so that a store compares every part.
     */
    static LearnedParts copyOf(SplitPolicyState split) {
        return new CopiedLearnedParts(split);
    }

    /** Every part as it is now, copied out. */
    default SplitPolicyState copy() {
        int n = workers();
        List<byte[]> parts = new ArrayList<>(n);
        for (int w = 0; w < n; w++) {
            parts.add(worker(w));
        }
        return new SplitPolicyState(shared(), parts);
    }
}
