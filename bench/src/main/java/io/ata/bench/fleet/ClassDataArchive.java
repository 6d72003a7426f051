package io.ata.bench.fleet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A class-data sharing archive (JDK AppCDS) of the classes a JVM loaded, so that the next JVM on the
 * same class path maps them instead of loading, verifying and linking them again: the container
 * image keeps one of the broker's classes for the same reason (docs/containers.md). A JVM started
 * with {@link #recordingOptions} writes the classes it loads to the class list; {@link #dump} turns
 * that list into the archive; a JVM started with {@link #usingOptions} maps it.
 *
 * <p>The JDK refuses to dump a class path holding directories (a build's {@code target/classes}):
 * {@link #dump} then says why, and the caller starts its JVM without the archive.
 */
final class ClassDataArchive {

    /** The longest a dump may take: it loads and verifies the listed classes (about 6 s for a broker's 7,000). */
    private static final long DUMP_TIMEOUT_SECONDS = 120;

    private final Path classList;
    private final Path archive;

    /** An archive at {@code archive}, made from the class list at {@code classList}. */
    ClassDataArchive(Path classList, Path archive) {
        this.classList = classList;
        this.archive = archive;
    }

    /** The options of a JVM whose loaded classes are to go into the archive. */
    List<String> recordingOptions() {
        return List.of("-XX:DumpLoadedClassList=" + classList);
    }

    /**
     * The options of a JVM that maps the archive; {@code -Xshare:auto}, so that a JVM that cannot
     * map it (another JDK, another class path) runs on without it.
     */
    List<String> usingOptions() {
        return List.of("-Xshare:auto", "-XX:SharedArchiveFile=" + archive);
    }

    /**
     * Dumps the classes the class list names, as found on {@code classPath}, into the archive.
     *
     * @return empty if the archive was written, else why not (the JDK's last lines)
     */
    String dump(String java, String classPath) throws IOException, InterruptedException {
        if (!Files.isRegularFile(classList) || Files.size(classList) == 0) {
            return "no class list at " + classList;
        }
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xshare:dump",
                "-XX:SharedClassListFile=" + classList,
                "-XX:SharedArchiveFile=" + archive,
                "-cp",
                classPath));
        Path log = Files.createTempFile(archive.getParent(), "class-data-dump", ".log");
        try {
            Process dump = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!dump.waitFor(DUMP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                dump.destroyForcibly();
                return "the dump took over " + DUMP_TIMEOUT_SECONDS + " s";
            }
            if (dump.exitValue() == 0 && Files.isRegularFile(archive)) {
                return "";
            }
            // the JDK's error lines say why (its warnings about classes it skips do not)
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> errors = lines.stream()
                    .filter(l -> !l.contains("[warning]"))
                    .filter(l -> l.toLowerCase(Locale.ROOT).matches(".*(error|cannot).*"))
                    .toList();
            List<String> why = errors.isEmpty() ? lines : errors;
            return "the dump failed (exit " + dump.exitValue() + "): "
                    + String.join(" / ", why.subList(Math.max(0, why.size() - 3), why.size()));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
