package io.ata.allocation.policy;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Version 2 of {@link ExpectedTimePolicy}'s learned state: its base policy's state and its
 * refinement cache, so that a restored policy plans exactly as the one that never stopped. The
 * cache is what the statistics alone cannot rebuild: plans refined and a time model fitted on the
 * statistics of earlier rounds, and when the next refresh falls.
 *
 * @param baseVersion       the version of the base policy's state
 * @param baseBytes         the base policy's state
 * @param nextRefresh       the round from which the cache is rebuilt
 * @param refinements       refinements computed so far (reported by {@code describe()})
 * @param membershipChanged whether the fleet changed since the policy last checked its cache: the
 *     restored policy then rebuilds it at its next plan, as the original would have
 * @param refined           the cached refined plans, one per frozen part of a base plan, in the
 *     order they were computed
 * @param lastFrozenPairs   the frozen part the last plan used ((worker, tasks) pairs), or null if
 *     the cache was emptied since
 * @param model             the period's round-time model, or null if none was built yet
 */
record ExpectedTimeState(
        int baseVersion,
        byte[] baseBytes,
        long nextRefresh,
        long refinements,
        boolean membershipChanged,
        List<Refinement> refined,
        int[] lastFrozenPairs,
        Model model) {

    static final int VERSION = 2;

    /**
     * A refined plan: {@code workers[k]} gets {@code tasks[k]}, for base plans whose frozen part
     * (tasks on barely-observed workers) is {@code frozenPairs}.
     */
    record Refinement(int[] frozenPairs, int[] workers, int[] tasks) {}

    /**
     * A {@link RoundTimeModel}: its horizon and the fits it had made, of {@code workers[k]} as
     * {@code fits[k]}.
     */
    record Model(double horizon, int[] workers, TimeFit[] fits) {}

    /**
     * Big-endian: the base state (version, length, bytes); nextRefresh, refinements, the membership
     * flag (one byte); the refined plans (count, then each frozen part, workers and tasks as
     * length-prefixed int arrays); the last frozen part (length -1 for none); the model (one byte
     * 0 for none, else the horizon and the count of fits, then each worker and its mean, shift,
     * shape and scale).
     */
    byte[] toBytes() {
        ByteBuffer out = ByteBuffer.allocate(size());
        out.putInt(baseVersion).putInt(baseBytes.length).put(baseBytes);
        out.putLong(nextRefresh).putLong(refinements).put((byte) (membershipChanged ? 1 : 0));
        out.putInt(refined.size());
        for (Refinement r : refined) {
            putInts(out, r.frozenPairs());
            putInts(out, r.workers());
            putInts(out, r.tasks());
        }
        if (lastFrozenPairs == null) {
            out.putInt(-1);
        } else {
            putInts(out, lastFrozenPairs);
        }
        if (model == null) {
            out.put((byte) 0);
        } else {
            out.put((byte) 1).putDouble(model.horizon()).putInt(model.workers().length);
            for (int k = 0; k < model.workers().length; k++) {
                TimeFit f = model.fits()[k];
                out.putInt(model.workers()[k]);
                out.putDouble(f.mean).putDouble(f.shift).putDouble(f.shape).putDouble(f.scale);
            }
        }
        return out.array();
    }

    private int size() {
        long size = 2 * Integer.BYTES + baseBytes.length + 2 * Long.BYTES + 1 + Integer.BYTES;
        for (Refinement r : refined) {
            size += Integer.BYTES * (3L + r.frozenPairs().length + r.workers().length + r.tasks().length);
        }
        size += Integer.BYTES * (1L + (lastFrozenPairs == null ? 0 : lastFrozenPairs.length));
        size += 1
                + (model == null
                        ? 0
                        : Double.BYTES + Integer.BYTES + (Integer.BYTES + 4L * Double.BYTES) * model.workers().length);
        return Math.toIntExact(size);
    }

    private static void putInts(ByteBuffer out, int[] values) {
        out.putInt(values.length);
        for (int v : values) {
            out.putInt(v);
        }
    }

    /** Reads {@link #toBytes()}'s encoding, refusing truncated, oversized or inconsistent bytes. */
    static ExpectedTimeState fromBytes(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            int baseVersion = in.getInt();
            byte[] baseBytes = new byte[count(in, in.getInt(), 1, "base state bytes")];
            in.get(baseBytes);
            long nextRefresh = in.getLong();
            long refinements = in.getLong();
            boolean membershipChanged = flag(in, "membership flag");
            int cached = count(in, in.getInt(), 3 * Integer.BYTES, "refined plans");
            List<Refinement> refined = new ArrayList<>(cached);
            for (int k = 0; k < cached; k++) {
                Refinement r = new Refinement(ints(in), ints(in), ints(in));
                if (r.workers().length != r.tasks().length) {
                    throw new IllegalArgumentException("a refined plan has " + r.workers().length + " workers for "
                            + r.tasks().length + " task counts");
                }
                refined.add(r);
            }
            int lastLength = in.getInt();
            int[] lastFrozenPairs = lastLength == -1 ? null : ints(in, lastLength);
            Model model = null;
            if (flag(in, "model flag")) {
                double horizon = in.getDouble();
                int fitted = count(in, in.getInt(), Integer.BYTES + 4 * Double.BYTES, "fits");
                int[] workers = new int[fitted];
                TimeFit[] fits = new TimeFit[fitted];
                for (int k = 0; k < fitted; k++) {
                    workers[k] = in.getInt();
                    fits[k] = new TimeFit(in.getDouble(), in.getDouble(), in.getDouble(), in.getDouble());
                }
                model = new Model(horizon, workers, fits);
            }
            if (in.hasRemaining()) {
                throw new IllegalArgumentException(in.remaining() + " bytes left over");
            }
            return new ExpectedTimeState(
                    baseVersion,
                    baseBytes,
                    nextRefresh,
                    refinements,
                    membershipChanged,
                    refined,
                    lastFrozenPairs,
                    model);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("ata-ert state of " + bytes.length + " bytes is truncated", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed ata-ert state: " + e.getMessage(), e);
        }
    }

    /** A count read from the bytes, checked against what is left of them (at least {@code bytesEach} per item). */
    private static int count(ByteBuffer in, int count, int bytesEach, String what) {
        if (count < 0 || (long) count * bytesEach > in.remaining()) {
            throw new IllegalArgumentException(
                    count + " " + what + " do not fit in the " + in.remaining() + " bytes left");
        }
        return count;
    }

    private static boolean flag(ByteBuffer in, String what) {
        byte b = in.get();
        if (b != 0 && b != 1) {
            throw new IllegalArgumentException(what + " is " + b + ", not 0 or 1");
        }
        return b == 1;
    }

    private static int[] ints(ByteBuffer in) {
        return ints(in, in.getInt());
    }

    private static int[] ints(ByteBuffer in, int length) {
        int[] values = new int[count(in, length, Integer.BYTES, "ints")];
        in.asIntBuffer().get(values);
        in.position(in.position() + values.length * Integer.BYTES);
        return values;
    }
}
