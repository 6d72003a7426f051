package io.ata.e2e;

import io.ata.local.LocalDeployment;
import io.ata.schemas.TopicDef;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.registry.SchemaNotFoundException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.specific.SpecificRecord;

/**
 * The bytes the hostile-record tests send (records encoded as the parts would, filled arrays,
 * keys), and the reasons the parts give when they refuse them, as the decoders word them.
 */
final class HostileBytes {
    private HostileBytes() {}

    /** {@code value} in the wire format of {@code topic}, through {@code local}'s Schema Registry. */
    static <V extends SpecificRecord> byte[] encode(LocalDeployment local, TopicDef<V> topic, V value) {
        return topic.valueSerde(local.registry()).serializer().serialize(topic.name(), value);
    }

    /** {@code n} copies of {@code value}. */
    static double[] filled(int n, double value) {
        double[] v = new double[n];
        Arrays.fill(v, value);
        return v;
    }

    /** {@code s} in UTF-8, as every key is; null stays null. */
    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** The schema id in the header of {@code record}, a value in the wire format at least 5 bytes long. */
    static int schemaId(byte[] record) {
        return ByteBuffer.wrap(record, 1, 4).getInt();
    }

    /** Whether {@code local}'s Schema Registry has a schema of id {@code id}. */
    static boolean registered(LocalDeployment local, int id) {
        try {
            local.registry().getById(id);
            return true;
        } catch (SchemaNotFoundException e) {
            return false;
        }
    }

    /**
     * The reason a part's decoder gives for a value that does not decode as its {@code what}
     * (e.g. "heartbeat"), the deserializer saying {@code detail}.
     */
    static String cannotDecode(String what, String detail) {
        return "cannot decode " + what + ": " + detail;
    }

    /**
     * What the deserializer says of {@code value}, bytes whose header is no usable wire format:
     * empty, another first byte than 0, shorter than the header, or a schema id the registry does
     * not have. Throws if the header names a schema of {@code local}'s registry (then the body
     * decides, and these words do not).
     */
    static String headerProblem(LocalDeployment local, byte[] value) {
        if (value.length == 0) {
            return "record too short: empty (0 bytes)";
        }
        if (value[0] != 0) {
            return String.format("unknown magic byte 0x%02x (not Schema Registry wire format)", value[0]);
        }
        if (value.length < 5) {
            return "record too short: " + value.length + " bytes";
        }
        int id = schemaId(value);
        if (registered(local, id)) {
            throw new IllegalArgumentException("the header names schema " + id + ", which the registry has");
        }
        return "unknown schema id " + id + " (the Schema Registry does not have it)";
    }

    /**
     * What the deserializer says of {@code value}, the first bytes of a record of type {@code type}
     * in the wire format, cut before its end.
     */
    static String cutBody(Class<?> type, byte[] value) {
        return "malformed Avro body for " + type.getSimpleName() + " written with schema id " + schemaId(value) + " ("
                + (value.length - 5) + " bytes)";
    }

    /**
     * The head {@link DeadLetters} puts before the reason of a letter it cut to the default size,
     * for a record of key {@code key} and value {@code value}.
     */
    static String truncatedLetter(byte[] key, byte[] value) {
        return "[payload truncated to its first " + DeadLetters.DEFAULT_MAX_PAYLOAD_BYTES + " bytes: key "
                + (key == null ? -1 : key.length) + " bytes, value " + (value == null ? -1 : value.length)
                + " bytes] ";
    }
}
