package io.ata.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --out DIR}: the directory a command writes its reports into, created if missing, by
 * default {@code out/COMMAND} ({@code out/simulate}, {@code out/replay}, {@code out/demo}). A picocli
 * mixin; picocli puts the command's name into the default, and the help shows the result.
 */
final class OutputDirectory {
    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "out/${COMMAND-NAME}",
            description = "Output directory, created if missing (default: ${DEFAULT-VALUE}).")
    private Path dir;

    /** The directory, as given (relative paths against the working directory). */
    Path path() {
        return dir;
    }
}
