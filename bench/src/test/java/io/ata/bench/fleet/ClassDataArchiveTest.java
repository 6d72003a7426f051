package io.ata.bench.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real JDK records, dumps and maps the archive: a JVM on a jar of one class writes its class
 * list, the dump makes the archive, and a JVM made to share ({@code -Xshare:on}, which fails where
 * it cannot map) loads that class from it.
 */
class ClassDataArchiveTest {

    /** The class the recorded JVM runs: it loads a few JDK classes besides itself. */
    public static final class Probe {
        public static void main(String[] args) {
            System.out.println(new java.util.concurrent.ConcurrentSkipListMap<String, String>().size());
        }
    }

    private static final String PROBE = Probe.class.getName();

    @TempDir
    Path dir;

    @Test
    void aJvmMapsTheClassesTheRecordedOneLoaded() throws Exception {
        Path jar = probeJar();
        ClassDataArchive archive = new ClassDataArchive(dir.resolve("probe.classlist"), dir.resolve("probe.jsa"));

        assertEquals(0, run(archive.recordingOptions(), jar.toString()).exitCode);
        String listed = PROBE.replace('.', '/');
        assertTrue(
                // JDK 18 and later follow a class's name with its id
                Files.readAllLines(dir.resolve("probe.classlist")).stream()
                        .anyMatch(l -> l.equals(listed) || l.startsWith(listed + " ")),
                "the class list names the probe");
        assertEquals("", archive.dump(BrokerProcess.javaCommand(), jar.toString()), "the dump succeeds");

        List<String> sharing = new ArrayList<>(archive.usingOptions());
        sharing.addAll(List.of("-Xshare:on", "-Xlog:class+load=info"));
        Run mapped = run(sharing, jar.toString());
        assertEquals(0, mapped.exitCode, mapped.output);
        assertTrue(
                mapped.output.contains(PROBE + " source: shared objects file"),
                "the probe came from the archive:\n" + mapped.output);
    }

    @Test
    void aClassPathTheJdkCannotShareIsSaidNotFailed() throws Exception {
        Path jar = probeJar();
        ClassDataArchive archive = new ClassDataArchive(dir.resolve("probe.classlist"), dir.resolve("probe.jsa"));
        assertTrue(archive.dump(BrokerProcess.javaCommand(), jar.toString()).startsWith("no class list at "));

        assertEquals(0, run(archive.recordingOptions(), jar.toString()).exitCode);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(classes.resolve("a-file"), "a directory the JDK will not archive from");
        // a build's classes before the jar, as on a test's class path
        String why = archive.dump(BrokerProcess.javaCommand(), classes + ":" + jar);
        assertTrue(why.startsWith("the dump failed (exit "), why);
        assertTrue(why.contains("non-empty directory"), "the JDK's reason: " + why);
    }

    /** A jar holding the probe's class alone. */
    private Path probeJar() throws IOException {
        String entry = PROBE.replace('.', '/') + ".class";
        Path jar = dir.resolve("probe.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                InputStream in = Probe.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    private record Run(int exitCode, String output) {}

    private Run run(List<String> options, String classPath) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(BrokerProcess.javaCommand()));
        command.addAll(options);
        command.addAll(List.of("-cp", classPath, PROBE));
        Path output = Files.createTempFile(dir, "probe", ".log");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe ended");
        return new Run(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}
