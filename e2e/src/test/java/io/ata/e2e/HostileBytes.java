package io.ata.e2e;

import io.ata.local.LocalDeployment;
import io.ata.schemas.TopicDef;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.avro.specific.SpecificRecord;

/** The bytes the hostile-record tests send: records encoded as the parts would, filled arrays, keys. */
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
}
