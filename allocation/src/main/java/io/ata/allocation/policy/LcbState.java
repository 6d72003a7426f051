package io.ata.allocation.policy;

import java.nio.ByteBuffer;

/**
 * Version 2 of {@link LcbPolicy}'s learned state: one section per thing the policy learns beyond
 * the statistics, each present only if the policy has it, each in its own encoding. Version 1
 * was the width's section alone (its bytes, unframed); a policy whose only learning is its width
 * still writes version 1, which every earlier build reads. Version 3 is taken by the shared part of
 * the state split per worker ({@link LcbSplitState}), which uses this framing too.
 *
 * @param width     {@link EstimatedRelativeWidth.State#toBytes()}, or null for a fixed width
 * @param drift     {@link DriftDetector.State#toBytes()}, or null without drift handling
 * @param probation the backup tasks' {@code Probation.State} bytes, or null without backups
 * @param overhead  {@link OverheadModel.State#toBytes()}, or null without an overhead model
 */
public record LcbState(byte[] width, byte[] drift, byte[] probation, byte[] overhead) {
    /** The version of the {@link #toBytes()} encoding. */
    public static final int VERSION = 2;

    /**
     * Big-endian, the sections in the order width, drift, probation, overhead: each a byte 0
     * (absent) or 1 (present), then if present its length and its bytes.
     */
    public byte[] toBytes() {
        byte[][] sections = {width, drift, probation, overhead};
        int size = 0;
        for (byte[] s : sections) {
            size += 1 + (s == null ? 0 : Integer.BYTES + s.length);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (byte[] s : sections) {
            if (s == null) {
                out.put((byte) 0);
            } else {
                out.put((byte) 1).putInt(s.length).put(s);
            }
        }
        return out.array();
    }

    /** Reads {@link #toBytes()}'s framing (not the sections' contents), refusing truncated or longer bytes. */
    public static LcbState fromBytes(byte[] bytes) {
        return StateReader.read(
                bytes,
                "ata state",
                in -> new LcbState(
                        section(in, "width"), section(in, "drift"), section(in, "probation"), section(in, "overhead")));
    }

    private static byte[] section(StateReader in, String name) {
        return in.flag("the " + name + " section's flag") ? in.bytes(in.count(1, name + " section bytes")) : null;
    }
}
