package io.ata.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.avro.util.ClassSecurityValidator;
import org.junit.jupiter.api.Test;

class AvroTrustTest {

    @Test
    void avrosOwnDefaultDoesNotTrustOurPackage() {
        // why AvroTrust exists: Avro 1.12's built-in predicate rejects our generated classes
        assertFalse(ClassSecurityValidator.DEFAULT.isTrusted(TaskTiming.class));
        assertFalse(ClassSecurityValidator.DEFAULT.isTrusted(TimingStatus.class));
    }

    @Test
    void ensureTrustsOurPackageOnlyAndIsIdempotent() {
        AvroTrust.ensure();
        ClassSecurityValidator.ClassSecurityPredicate afterFirst = ClassSecurityValidator.getGlobal();
        AvroTrust.ensure();
        assertTrue(afterFirst == ClassSecurityValidator.getGlobal(), "second ensure() changed nothing");
        assertTrue(AvroTrust.isTrusted(TaskTiming.class));
        assertTrue(AvroTrust.isTrusted(TimingStatus.class));
        assertTrue(AvroTrust.isTrusted(String.class), "what Avro trusted before is kept");
        assertFalse(AvroTrust.isTrusted(java.util.concurrent.ThreadPoolExecutor.class));
    }

    @Test
    void specificDatumReaderReadsOurRecordsInThisJvm() throws Exception {
        RoundEvent event = SampleRecords.roundClosed();
        RoundEvent read = AvroTrustProbe.plainRoundTrip(event, RoundEvent.class);
        assertEquals(event, read);
        assertEquals(RoundTiming.class, read.getTimings().get(0).getClass());
    }

    /**
     * The real proof: a fresh JVM, in which nobody called AvroTrust or created a serde, builds a
     * record with an enum default and reads it back with a plain SpecificDatumReader.
     */
    @Test
    void freshJvmUsesGeneratedClassesWithoutAnySetup() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", classpath, AvroTrustProbe.class.getName())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "probe JVM finished");
        assertEquals(0, process.exitValue(), "probe JVM failed:\n" + output);

        List<String> lines = output.lines().toList();
        assertTrue(lines.contains("trustedAtStart=false"), output); // Avro starts out refusing us...
        assertTrue(lines.contains("readClass=io.ata.schemas.TaskTiming"), output); // ...yet reads us
        assertTrue(lines.contains("status=COMPLETED"), output);
        assertTrue(lines.contains("equal=true"), output);
    }
}
