package io.ata.allocation.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@link LcbPolicy}'s learned state cut into a shared part and one part per worker
 * ({@link AllocationPolicy#learnedParts()}), and joined back into the whole.
 *
 * <p>Each per-worker component's state is cut into a remainder over no worker, which carries what
 * belongs to no worker (the drift detector's alarm count, the overhead terms' fleet estimates),
 * and one slice per worker, which carries that worker's entries and leaves those scalars at zero,
 * so a worker's part changes only when that worker does. A worker's part is an {@link LcbState}
 * of its slices, without a width; the shared part is an {@link LcbState} of the estimated width
 * and the remainders, tagged {@link #SHARED_VERSION}. A component the policy does not have is
 * absent from the shared part and from every worker's part alike.
 */
final class LcbSplitState {
    /**
     * The version of the shared part: neither {@link LcbPolicy#WIDTH_ONLY_VERSION} nor
     * {@link LcbState#VERSION}, so that a whole-state reader refuses a shared part instead of
     * reading its remainders as the state of a fleet of no worker.
     */
    static final int SHARED_VERSION = 3;

    private LcbSplitState() {}

    /**
     * The shared part of the state of the given components, each null if the policy does not have
     * it: the width's bytes and each component's remainder over no worker.
     */
    static PolicyState shared(
            String policy, byte[] width, DriftDetector drift, BackupTasks backups, OverheadModel overhead) {
        LcbState shared = new LcbState(
                width,
                drift == null ? null : drift.snapshot(0).withoutWorkers().toBytes(),
                backups == null ? null : backups.snapshot(0).withoutWorkers().toBytes(),
                overhead == null ? null : overhead.snapshot(0).withoutWorkers().toBytes());
        return new PolicyState(policy, SHARED_VERSION, shared.toBytes());
    }

    /** Worker {@code w}'s part of the state of the given components, each null if the policy does not have it. */
    static byte[] worker(int w, DriftDetector drift, BackupTasks backups, OverheadModel overhead) {
        LcbState part = new LcbState(
                null,
                drift == null ? null : drift.slice(w).toBytes(),
                backups == null ? null : backups.slice(w).toBytes(),
                overhead == null ? null : overhead.slice(w).toBytes());
        return part.toBytes();
    }

    /**
     * Joins the bytes of a shared part and of the worker parts back into the whole state's
     * sections (of {@link LcbState#VERSION}), decoding and checking every part on the way. The
     * width's section is passed on as it is, for the whole state's reader to check.
     *
     * @throws IllegalArgumentException if a part is malformed, or not of the shape {@link #shared}
     *     and {@link #worker} write
     */
    static LcbState join(byte[] sharedBytes, List<byte[]> workerBytes) {
        LcbState shared = decodeShared(sharedBytes, LcbState::fromBytes);
        List<LcbState> parts = new ArrayList<>(workerBytes.size());
        for (int w = 0; w < workerBytes.size(); w++) {
            LcbState part = decode(w, workerBytes.get(w), LcbState::fromBytes);
            if (part.width() != null
                    || (part.drift() == null) != (shared.drift() == null)
                    || (part.probation() == null) != (shared.probation() == null)
                    || (part.overhead() == null) != (shared.overhead() == null)) {
                throw new IllegalArgumentException("worker " + w
                        + "'s part has other sections than the shared part's drift, probation and overhead");
            }
            parts.add(part);
        }
        byte[] drift = null;
        if (shared.drift() != null) {
            drift = DriftDetector.State.join(
                            decodeShared(shared.drift(), DriftDetector.State::fromBytes),
                            slices(parts, LcbState::drift, DriftDetector.State::fromBytes))
                    .toBytes();
        }
        byte[] probation = null;
        if (shared.probation() != null) {
            probation = Probation.State.join(
                            decodeShared(shared.probation(), Probation.State::fromBytes),
                            slices(parts, LcbState::probation, Probation.State::fromBytes))
                    .toBytes();
        }
        byte[] overhead = null;
        if (shared.overhead() != null) {
            overhead = OverheadModel.State.join(
                            decodeShared(shared.overhead(), OverheadModel.State::fromBytes),
                            slices(parts, LcbState::overhead, OverheadModel.State::fromBytes))
                    .toBytes();
        }
        return new LcbState(shared.width(), drift, probation, overhead);
    }

    /** Every worker's slice of one component, decoded from that component's section of its part. */
    private static <S> List<S> slices(
            List<LcbState> parts, Function<LcbState, byte[]> section, Function<byte[], S> decoder) {
        List<S> slices = new ArrayList<>(parts.size());
        for (int w = 0; w < parts.size(); w++) {
            slices.add(decode(w, section.apply(parts.get(w)), decoder));
        }
        return slices;
    }

    /** Decodes bytes of the shared part, saying so if they are refused. */
    private static <S> S decodeShared(byte[] bytes, Function<byte[], S> decoder) {
        try {
            return decoder.apply(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the shared part: " + e.getMessage(), e);
        }
    }

    /** Decodes worker {@code w}'s bytes, naming the worker if they are refused. */
    private static <S> S decode(int w, byte[] bytes, Function<byte[], S> decoder) {
        try {
            return decoder.apply(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("worker " + w + "'s part: " + e.getMessage(), e);
        }
    }
}
