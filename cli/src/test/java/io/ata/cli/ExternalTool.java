package io.ata.cli;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/** A program the tests run if this machine has it (promtool, prometheus, kubectl), else skip. */
final class ExternalTool {
    private ExternalTool() {}

    /** Whether {@code program} is an executable on the {@code PATH}. */
    static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }
}
