package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.cli.CsvTable;
import io.ata.testsupport.EndToEnd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata bench-fleet --restore} run from the distribution jar, as a user runs it: the broker
 * restarted after {@code kill -9} maps a class-data sharing archive of the classes its predecessor
 * loaded, as the container image's broker does. Maven's own test runs cannot show it: their class
 * path holds the build's class directories, which the JDK does not archive.
 */
@EndToEnd
class RestartFromTheJarTest {
    /** The jar as the container test finds it. */
    private static final Path JAR = DockerImages.distributionJar();

    @TempDir
    Path out;

    @Test
    void theRestartedBrokerMapsTheArchiveOfItsPredecessorsClasses() throws Exception {
        assertTrue(Files.isRegularFile(JAR), "no " + JAR + ": the package phase of cli/ builds it");
        Path log = out.resolve("bench.log");
        Process bench = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx2g",
                        "-jar",
                        JAR.toString(),
                        "bench-fleet",
                        "--agents",
                        "4",
                        "--restore",
                        "2",
                        "--only",
                        "restore",
                        "--out",
                        out.resolve("bench").toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        // the bench's own waits are bounded (the broker's start, the jobs' rounds, the restart)
        boolean ended = bench.waitFor(10, TimeUnit.MINUTES);
        if (!ended) {
            bench.descendants().forEach(ProcessHandle::destroyForcibly); // its broker process too
            bench.destroyForcibly().waitFor();
        }
        String transcript = Files.readString(log);
        assertTrue(ended && bench.exitValue() == 0, "the bench ended well within 10 minutes:\n" + transcript);

        Map<String, String> r =
                CsvTable.read(out.resolve("bench/restore.csv")).rows().get(0);
        assertEquals("on", r.get("class_data_sharing"), "the new process mapped the archive:\n" + transcript);
        assertEquals(r.get("live_jobs"), r.get("jobs_progressed"), "every live job progressed: " + r);
        assertTrue(transcript.contains("new process (class-data sharing on"), transcript);
    }
}
