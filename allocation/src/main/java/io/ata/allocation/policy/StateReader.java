package io.ata.allocation.policy;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Reads a learned-state encoding (big-endian) and checks every value as it goes, so that a
 * truncated, oversized or impossible encoding is an {@link IllegalArgumentException} naming what
 * was wrong, before anything is restored from it.
 */
final class StateReader {
    /** Decodes the whole of {@code bytes} with {@code decode}. */
    @FunctionalInterface
    interface Decoder<T> {
        T decode(StateReader in);
    }

    private final ByteBuffer in;

    private StateReader(byte[] bytes) {
        this.in = ByteBuffer.wrap(bytes);
    }

    /**
     * Decodes {@code bytes}, all of them, as {@code what}.
     *
     * @throws IllegalArgumentException "malformed {what}: ..." if they are truncated, too long or
     *     hold an impossible value
     */
    static <T> T read(byte[] bytes, String what, Decoder<T> decode) {
        StateReader reader = new StateReader(bytes);
        try {
            T value = decode.decode(reader);
            if (reader.in.hasRemaining()) {
                throw new IllegalArgumentException(reader.in.remaining() + " bytes left over");
            }
            return value;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("malformed " + what + ": " + bytes.length + " bytes are truncated", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed " + what + ": " + e.getMessage(), e);
        }
    }

    /** A count of items of at least {@code bytesEach} bytes, which must fit in what is left. */
    int count(int bytesEach, String what) {
        int count = in.getInt();
        if (count < 0 || (long) count * bytesEach > in.remaining()) {
            throw new IllegalArgumentException(
                    count + " " + what + " do not fit in the " + in.remaining() + " bytes left");
        }
        return count;
    }

    /** A finite double {@code >= 0}. */
    double nonNegative(String what) {
        double x = in.getDouble();
        if (!(x >= 0) || Double.isInfinite(x)) {
            throw new IllegalArgumentException(what + " is " + x + ", not a finite number >= 0");
        }
        return x;
    }

    /** A long {@code >= 0}. */
    long nonNegativeLong(String what) {
        long x = in.getLong();
        if (x < 0) {
            throw new IllegalArgumentException(what + " is " + x + ", not >= 0");
        }
        return x;
    }

    /** An int in {@code [min, max]}. */
    int intIn(int min, int max, String what) {
        int x = in.getInt();
        if (x < min || x > max) {
            throw new IllegalArgumentException(what + " is " + x + ", not in [" + min + ", " + max + "]");
        }
        return x;
    }

    /** One byte, 0 or 1. */
    boolean flag(String what) {
        byte b = in.get();
        if (b != 0 && b != 1) {
            throw new IllegalArgumentException(what + " is " + b + ", not 0 or 1");
        }
        return b == 1;
    }

    /** {@code length} raw bytes. */
    byte[] bytes(int length) {
        byte[] out = new byte[length];
        in.get(out);
        return out;
    }
}
