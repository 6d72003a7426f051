package io.ata.broker;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's roster as it is stored: its workers' ids in index order, each as a 4-byte big-endian
 * length and its UTF-8 bytes. Append-only, like the job's workers, so a worker joining changes the
 * last chunk the roster is stored in ({@link JobStateParts}), not the others. With the roster
 * stored, a worker the job has not observed needs no record of its own.
 */
final class JobRoster {
    private JobRoster() {}

    static byte[] encode(List<String> workerIds) {
        List<byte[]> ids = new ArrayList<>(workerIds.size());
        int size = 0;
        for (String id : workerIds) {
            byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
            ids.add(bytes);
            size += Integer.BYTES + bytes.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        ids.forEach(bytes -> out.putInt(bytes.length).put(bytes));
        return out.array();
    }

    /**
     * The first {@code count} ids {@code bytes} holds, in order. What follows them is not read: a
     * query reads a job's parts while the broker may be writing them, the record last, and may see
     * the roster of a job with more workers than its record (only ever more: it is append-only).
     *
     * @throws IllegalArgumentException if it does not begin with {@code count} entries {@link #encode} wrote
     */
    static List<String> decode(byte[] bytes, int count) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        List<String> ids = new ArrayList<>(count);
        try {
            while (ids.size() < count) {
                if (!in.hasRemaining()) {
                    throw new IllegalArgumentException("it names " + ids.size());
                }
                int length = in.getInt();
                if (length < 0 || length > in.remaining()) {
                    throw new IllegalArgumentException(
                            "a roster entry of " + length + " bytes, " + in.remaining() + " left");
                }
                byte[] id = new byte[length];
                in.get(id);
                ids.add(new String(id, StandardCharsets.UTF_8));
            }
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("a roster cut inside an entry's length", e);
        }
        return ids;
    }
}
