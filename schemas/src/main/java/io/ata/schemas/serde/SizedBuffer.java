package io.ata.schemas.serde;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * A {@link ByteArrayOutputStream} that hands its array over without a copy when the bytes fill it
 * exactly. {@link AvroSerializer} sizes it from the previous two records, so a run of records of one size
 * (a gradient's slices of 900 kB) is written with one allocation and no copy each, where a default
 * stream grows by doubling (copying every byte about twice) and then copies once more.
 */
final class SizedBuffer extends ByteArrayOutputStream {

    SizedBuffer(int capacity) {
        super(capacity);
    }

    /** The bytes written: the array itself when they fill it, else a copy of the written part. */
    byte[] bytes() {
        return count == buf.length ? buf : Arrays.copyOf(buf, count);
    }
}
