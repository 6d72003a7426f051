package io.ata.schemas.chunk;

import io.ata.schemas.JobNames;
import io.ata.schemas.Topics;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * How a payload larger than one Kafka record travels: as {@code chunks} records that each carry a
 * slice of its bytes and repeat the record's other fields, all produced in one transaction. A
 * {@code read_committed} reader therefore sees every slice or none, and {@link ChunkAssembler} puts
 * them back together. No broker or client setting has to change: a slice leaves room under Kafka's
 * default 1 MiB limits ({@code max.request.size}, {@code message.max.bytes}) for the record's other
 * fields and the batch headers.
 *
 * <p>Keys: on a compacted topic (model versions, optimizer state) the slices of one payload need
 * keys of their own, or compaction would keep only the last: slice {@code i} of a chunked payload
 * of job {@code j} is keyed {@code j#i}, an unchunked one {@code j} as before. All of a job's
 * slices are written to {@link Topics#partitionOfJob the partition of the key j}, so a reader of that
 * partition sees them in order, and compaction keeps, per slice, the latest version's.
 */
public final class Chunks {
    /** Payload bytes per record unless configured otherwise. */
    public static final int DEFAULT_CHUNK_BYTES = 900_000;
    /** The most slices one payload may have: 8 GB at the default size. */
    public static final int MAX_CHUNKS = 10_000;

    private Chunks() {}

    /** How many records carry {@code payloadBytes} bytes in slices of {@code chunkBytes}: at least 1. */
    public static int count(int payloadBytes, int chunkBytes) {
        if (chunkBytes < 1 || payloadBytes < 0) {
            throw new IllegalArgumentException(
                    "need chunkBytes >= 1 and payloadBytes >= 0, got " + chunkBytes + " and " + payloadBytes);
        }
        int chunks = Math.max(1, (int) ((payloadBytes + (long) chunkBytes - 1) / chunkBytes));
        if (chunks > MAX_CHUNKS) {
            throw new IllegalArgumentException(payloadBytes + " bytes need " + chunks + " slices of " + chunkBytes
                    + " bytes, more than the " + MAX_CHUNKS + " allowed");
        }
        return chunks;
    }

    /**
     * Slice {@code chunk} of {@code payload} cut in slices of {@code chunkBytes}: a view sharing
     * its bytes, not a copy, to be read only. (Not a read-only buffer: Avro copies the bytes of
     * a buffer without an accessible array before encoding them.)
     */
    public static ByteBuffer slice(byte[] payload, int chunk, int chunkBytes) {
        return slice(ByteBuffer.wrap(payload), chunk, chunkBytes);
    }

    /**
     * Slice {@code chunk} of the remaining bytes of {@code payload} cut in slices of
     * {@code chunkBytes}: a view sharing its bytes, as {@link #slice(byte[], int, int)}.
     */
    public static ByteBuffer slice(ByteBuffer payload, int chunk, int chunkBytes) {
        int chunks = count(payload.remaining(), chunkBytes);
        Objects.checkIndex(chunk, chunks);
        int from = chunk * chunkBytes;
        int length = Math.min(chunkBytes, payload.remaining() - from);
        return payload.slice(payload.position() + from, length);
    }

    /**
     * The bytes from the buffer's position to its limit: the buffer's own array when it wraps one
     * exactly (a payload read or built whole is not copied again), else a copy. The buffer's
     * position is left as it is.
     */
    public static byte[] bytesOf(ByteBuffer buffer) {
        if (buffer.hasArray()
                && buffer.arrayOffset() == 0
                && buffer.position() == 0
                && buffer.remaining() == buffer.array().length) {
            return buffer.array();
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** The record key of slice {@code chunk} of {@code chunks} of {@code job}'s payload. */
    public static String key(String job, int chunk, int chunks) {
        return chunks == 1 ? job : job + JobNames.SLICE_SEPARATOR + chunk;
    }
}
