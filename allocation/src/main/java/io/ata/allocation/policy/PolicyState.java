package io.ata.allocation.policy;

import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a policy has learned beyond the statistics, as the policy itself encodes it: opaque bytes
 * tagged with the name of the policy that wrote them and the version of its encoding. The broker
 * stores it with the job and hands it back after a restart without knowing what is inside, so a
 * new learning policy needs no schema change; a policy refuses another policy's state and any
 * version it cannot read, instead of misreading it.
 *
 * @param policy  the name of the policy that wrote it, e.g. {@code ata-auto} or {@code ata-hedge:2}
 * @param version the version of that policy's encoding of {@code bytes}
 * @param bytes   the encoded state (a defensive copy; never shared with the caller)
 */
public record PolicyState(String policy, int version, byte[] bytes) {

    public PolicyState {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(bytes, "bytes");
        bytes = bytes.clone();
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Throws unless this state was written by the policy named {@code name}. */
    public void requirePolicy(String name) {
        if (!policy.equals(name)) {
            throw new IllegalArgumentException(
                    "the learned state of policy '" + policy + "' cannot be restored into policy '" + name + "'");
        }
    }

    /** Throws unless this state is in one of the {@code readable} versions of the encoding this build reads. */
    public void requireVersion(int... readable) {
        if (Arrays.stream(readable).noneMatch(v -> v == version)) {
            String reads = readable.length == 1
                    ? "version " + readable[0]
                    : "versions "
                            + Arrays.stream(readable)
                                    .mapToObj(Integer::toString)
                                    .collect(Collectors.joining(", "));
            throw new IllegalArgumentException("the learned state of policy '" + policy + "' has version " + version
                    + ", which this build cannot read (it reads " + reads + ")");
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PolicyState that
                && policy.equals(that.policy)
                && version == that.version
                && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(policy, version, Arrays.hashCode(bytes));
    }

    @Override
    public String toString() {
        return "PolicyState[policy=" + policy + ", version=" + version + ", " + bytes.length + " bytes]";
    }
}
