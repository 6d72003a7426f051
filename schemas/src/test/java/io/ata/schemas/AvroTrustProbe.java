package io.ata.schemas;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.avro.util.ClassSecurityValidator;

/**
 * Run by {@link AvroTrustTest} in a fresh JVM, where nothing has touched Avro yet: uses the
 * generated classes with plain Avro API only (no serde, no explicit {@link AvroTrust} call) and
 * prints what happened. Exits non-zero, with the stack trace, if Avro refuses our classes.
 */
public final class AvroTrustProbe {

    public static void main(String[] args) throws Exception {
        // a class literal does not initialize the class, so no Avro data model exists yet
        boolean trustedAtStart = ClassSecurityValidator.getGlobal().isTrusted(TaskTiming.class);

        // leaves status unset: build() must create the enum default TimingStatus.COMPLETED by name
        TaskTiming timing = TaskTiming.newBuilder()
                .setJob("j")
                .setRound(1)
                .setTaskId("j/1/0")
                .setWorkerId("w")
                .setModelVersion(0)
                .setComputeMs(1.5)
                .setStartMs(10)
                .setEndMs(12)
                .build();

        TaskTiming read = plainRoundTrip(timing, TaskTiming.class);

        System.out.println("trustedAtStart=" + trustedAtStart);
        System.out.println("readClass=" + read.getClass().getName());
        System.out.println("status=" + read.getStatus());
        System.out.println("equal=" + read.equals(timing));
    }

    /** {@code record} written to bytes and read back with Avro's plain specific API, as any Avro user would. */
    static <T extends SpecificRecord> T plainRoundTrip(T record, Class<T> type) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new SpecificDatumWriter<>(type).write(record, encoder);
        encoder.flush();
        return new SpecificDatumReader<>(type)
                .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    }
}
