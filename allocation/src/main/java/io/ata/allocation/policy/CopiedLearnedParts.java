package io.ata.allocation.policy;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link LearnedParts#copyOf}: a split state as it was when copied, for a policy that does not count
 * its workers' changes. Every view's count is new, so a store compares every part.
 */
final class CopiedLearnedParts implements LearnedParts {
    private static final AtomicLong VIEWS = new AtomicLong();

    private final SplitPolicyState split;
    private final List<byte[]> parts;
    private final long changes = VIEWS.incrementAndGet();

    CopiedLearnedParts(SplitPolicyState split) {
        this.split = split;
        this.parts = split.workers();
    }

    @Override
    public int workers() {
        return parts.size();
    }

    @Override
    public PolicyState shared() {
        return split.shared();
    }

    @Override
    public byte[] worker(int w) {
        return parts.get(w).clone();
    }

    @Override
    public long changes(int w) {
        return changes;
    }
}
