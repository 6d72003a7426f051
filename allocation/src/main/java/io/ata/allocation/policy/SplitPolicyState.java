package io.ata.allocation.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A policy's learned state cut in two: what belongs to no worker, and one part per worker of the
 * statistics (index order), so that a store can rewrite only the workers whose part changed. A
 * round changes the parts of the few workers that got tasks; with a thousand workers, rewriting
 * the whole state every round would cost a thousand times what changed. Like {@link PolicyState},
 * all of it is opaque bytes to whoever stores it; only the policy that wrote it can read it
 * ({@link AllocationPolicy#restoreSplitLearnedState}).
 *
 * @param shared  what belongs to no worker, tagged with the policy and the version of the split
 *     encoding (which a whole-state reader refuses)
 * @param workers worker {@code w}'s part at index {@code w} (defensive copies, in and out)
 */
public record SplitPolicyState(PolicyState shared, List<byte[]> workers) {

    public SplitPolicyState {
        Objects.requireNonNull(shared, "shared");
        Objects.requireNonNull(workers, "workers");
        workers = copyOf(workers);
    }

    @Override
    public List<byte[]> workers() {
        return copyOf(workers);
    }

    /** The refusal of a policy that keeps its learned state whole: the caller must restore that instead. */
    static IllegalArgumentException notSplitBy(String policy) {
        return new IllegalArgumentException(
                policy + " does not split its learned state per worker; restore its whole learnedState() instead");
    }

    private static List<byte[]> copyOf(List<byte[]> parts) {
        List<byte[]> copy = new ArrayList<>(parts.size());
        for (int w = 0; w < parts.size(); w++) {
            copy.add(Objects.requireNonNull(parts.get(w), "worker " + w + "'s part")
                    .clone());
        }
        return List.copyOf(copy);
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof SplitPolicyState that)
                || !shared.equals(that.shared)
                || workers.size() != that.workers.size()) {
            return false;
        }
        for (int w = 0; w < workers.size(); w++) {
            if (!Arrays.equals(workers.get(w), that.workers.get(w))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int hash = shared.hashCode();
        for (byte[] part : workers) {
            hash = 31 * hash + Arrays.hashCode(part);
        }
        return hash;
    }

    @Override
    public String toString() {
        long bytes = workers.stream().mapToLong(part -> part.length).sum();
        return "SplitPolicyState[shared=" + shared + ", " + workers.size() + " worker parts, " + bytes + " bytes]";
    }
}
