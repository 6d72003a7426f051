package io.ata.schemas.serde;

import io.ata.schemas.serde.SerializationFormatException.Reason;
import java.io.ByteArrayOutputStream;

/**
 * The Schema Registry wire format (Confluent's), so our records are readable by any tool that
 * knows it:
 * <pre>
 *   byte 0      magic byte, always 0
 *   bytes 1-4   schema id, a big-endian int: the writer schema in the registry
 *   bytes 5-    Avro binary encoding of the record with that schema
 * </pre>
 */
public final class WireFormat {

    /** The first byte of every record. */
    public static final byte MAGIC_BYTE = 0;

    /** Bytes before the Avro body: magic byte and schema id. */
    public static final int HEADER_LENGTH = 5;

    private WireFormat() {}

    /** Writes the header of a record written with schema {@code schemaId}. */
    public static void writeHeader(ByteArrayOutputStream out, int schemaId) {
        out.write(MAGIC_BYTE);
        out.write(schemaId >>> 24);
        out.write(schemaId >>> 16);
        out.write(schemaId >>> 8);
        out.write(schemaId);
    }

    /** Header plus {@code avroBody}: a complete record value. */
    public static byte[] frame(int schemaId, byte[] avroBody) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(HEADER_LENGTH + avroBody.length);
        writeHeader(out, schemaId);
        out.writeBytes(avroBody);
        return out.toByteArray();
    }

    /**
     * Checks the header of {@code record} and returns its schema id; the Avro body starts at
     * {@link #HEADER_LENGTH}.
     *
     * @throws SerializationFormatException if the record is shorter than the header or does not
     *     start with the magic byte
     */
    public static int schemaId(byte[] record) {
        if (record.length == 0) {
            throw new SerializationFormatException(
                    Reason.TOO_SHORT,
                    "record too short: empty (0 bytes), expected magic byte 0 + 4-byte schema id + Avro body");
        }
        if (record[0] != MAGIC_BYTE) {
            throw new SerializationFormatException(
                    Reason.UNKNOWN_MAGIC_BYTE,
                    String.format("unknown magic byte 0x%02x (not Schema Registry wire format)", record[0]));
        }
        if (record.length < HEADER_LENGTH) {
            throw new SerializationFormatException(
                    Reason.TOO_SHORT,
                    "record too short: " + record.length
                            + " bytes, expected at least 5 (magic byte 0 + 4-byte schema id)");
        }
        return ((record[1] & 0xff) << 24) | ((record[2] & 0xff) << 16) | ((record[3] & 0xff) << 8) | (record[4] & 0xff);
    }
}
