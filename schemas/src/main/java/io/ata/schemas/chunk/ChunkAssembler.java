package io.ata.schemas.chunk;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Puts chunked payloads back together ({@link Chunks}): slices come in, in any order and
 * interleaved with other payloads' slices, and the whole payload comes out when its last slice
 * arrives. Payloads are told apart by a key of the caller's choice (e.g. task id and payload id of
 * a result, or job and version of a model).
 *
 * <p>Memory is bounded: a payload may not exceed {@code maxPayloadBytes}, and at most
 * {@code maxOpen} payloads may be incomplete at once; a slice that would break either bound, or
 * that contradicts the slices before it, is refused with a reason (for a dead letter), never
 * thrown. Incomplete payloads nobody will finish (e.g. of a round that closed) are dropped with
 * {@link #discardIf}.
 *
 * <p>It keeps the slices it is offered, not copies, until their payload is complete (each byte is
 * copied once, into the whole payload): a caller offers buffers nobody writes afterwards, such as
 * a freshly decoded record's.
 *
 * <p>Not thread-safe.
 *
 * @param <K> what identifies one payload
 */
public final class ChunkAssembler<K> {

    /** What an offered slice led to. */
    public sealed interface Offer permits Incomplete, Complete, Refused {}

    /** The payload still misses slices. */
    public record Incomplete(int received, int chunks) implements Offer {}

    /** The slice completed the payload: here it is, whole. */
    public record Complete(byte[] payload) implements Offer {}

    /** The slice cannot be used; the payload it belongs to, if any was open, is dropped. */
    public record Refused(String reason) implements Offer {}

    private final long maxPayloadBytes;
    private final int maxOpen;
    private final Map<K, Assembly> open = new LinkedHashMap<>();

    /**
     * @param maxPayloadBytes the largest payload accepted, in bytes
     * @param maxOpen how many payloads may be incomplete at once
     */
    public ChunkAssembler(long maxPayloadBytes, int maxOpen) {
        if (maxPayloadBytes < 1 || maxOpen < 1) {
            throw new IllegalArgumentException(
                    "need maxPayloadBytes >= 1 and maxOpen >= 1, got " + maxPayloadBytes + " and " + maxOpen);
        }
        this.maxPayloadBytes = maxPayloadBytes;
        this.maxOpen = maxOpen;
    }

    /**
     * Adds slice {@code chunk} of {@code chunks} of payload {@code key}. A payload of one slice
     * completes at once, without being stored.
     */
    public Offer offer(K key, int chunk, int chunks, ByteBuffer slice) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(slice, "slice");
        if (chunks < 1 || chunks > Chunks.MAX_CHUNKS) {
            return refuse(key, "chunks must be between 1 and " + Chunks.MAX_CHUNKS + ", was " + chunks);
        }
        if (chunk < 0 || chunk >= chunks) {
            return refuse(key, "chunk " + chunk + " is not between 0 and " + (chunks - 1));
        }
        if (chunks == 1) {
            if (slice.remaining() > maxPayloadBytes) {
                return refuse(key, tooLarge(slice.remaining()));
            }
            return new Complete(Chunks.bytesOf(slice));
        }
        Assembly assembly = open.get(key);
        if (assembly == null) {
            if (open.size() >= maxOpen) {
                return new Refused("more than " + maxOpen + " chunked payloads are incomplete at once");
            }
            assembly = new Assembly(chunks);
            open.put(key, assembly);
        }
        if (assembly.slices.length != chunks) {
            return refuse(
                    key, "chunk " + chunk + " says " + chunks + " chunks, earlier ones said " + assembly.slices.length);
        }
        if (assembly.slices[chunk] != null) {
            return refuse(key, "chunk " + chunk + " of " + chunks + " arrived twice");
        }
        if (assembly.bytes + slice.remaining() > maxPayloadBytes) {
            return refuse(key, tooLarge(assembly.bytes + slice.remaining()));
        }
        assembly.slices[chunk] = slice.duplicate();
        assembly.bytes += slice.remaining();
        assembly.received++;
        if (assembly.received < chunks) {
            return new Incomplete(assembly.received, chunks);
        }
        open.remove(key);
        byte[] whole = new byte[(int) assembly.bytes];
        int at = 0;
        for (ByteBuffer part : assembly.slices) {
            int length = part.remaining();
            part.get(whole, at, length);
            at += length;
        }
        return new Complete(whole);
    }

    /** Drops every incomplete payload whose key matches; returns how many were dropped. */
    public int discardIf(Predicate<? super K> drop) {
        int dropped = 0;
        for (Iterator<K> keys = open.keySet().iterator(); keys.hasNext(); ) {
            if (drop.test(keys.next())) {
                keys.remove();
                dropped++;
            }
        }
        return dropped;
    }

    /** Payloads still missing slices. */
    public int incomplete() {
        return open.size();
    }

    private Refused refuse(K key, String reason) {
        open.remove(key);
        return new Refused(reason);
    }

    private String tooLarge(long bytes) {
        return "payload of " + bytes + " bytes or more is larger than the " + maxPayloadBytes + " allowed";
    }

    private static final class Assembly {
        final ByteBuffer[] slices;
        long bytes;
        int received;

        Assembly(int chunks) {
            this.slices = new ByteBuffer[chunks];
        }
    }
}
