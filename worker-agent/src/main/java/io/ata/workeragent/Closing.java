package io.ata.workeragent;

import java.util.List;
import org.slf4j.Logger;

/**
 * Closing an agent's parts one after another, where one that fails to close must not keep the
 * next from closing: its failure is logged at debug level (a closing agent's clients often fail
 * for the reason it stops), and creation that fails part-way closes what was made.
 */
final class Closing {

    /** A step that may throw anything. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private Closing() {}

    /** Runs {@code step}, logging a failure to {@code log} instead of throwing it. */
    static void quietly(Logger log, String what, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            log.debug("closing {}: {}", what, e.toString());
        }
    }

    /** Adds {@code part} to {@code created} (closed if the rest of the creation fails) and returns it. */
    static <T extends AutoCloseable> T track(List<AutoCloseable> created, T part) {
        created.add(part);
        return part;
    }
}
