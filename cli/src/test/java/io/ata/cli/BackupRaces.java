package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a policy that allocates exactly B tasks a round ({@code ata-auto}) may run beyond them: the
 * losing side of a race between a task and its backup copy. A loaded machine can delay a healthy
 * agent past its deadline, so a short live job may have a few such races; every other result is
 * used.
 */
final class BackupRaces {
    private BackupRaces() {}

    /** The copies of used tasks that lost their race: finished after the round closed, or stopped by its close. */
    record Losers(int late, int cancelled) {
        int total() {
            return late + cancelled;
        }
    }

    /**
     * Checks a job's timing log (CSV, as {@code ata export-timings} and {@code ata demo} write it):
     * {@code completed} distinct tasks were used, and every other record is a losing copy of one of
     * those tasks: late (it finished after the round closed) or cancelled (its agent stopped it when
     * the round closed, which a loaded machine makes likelier).
     */
    static Losers assertOnlyLosingCopies(Path timings, long completed) throws IOException {
        List<Map<String, String>> rows = CsvTable.read(timings).rows();
        Set<String> used = new HashSet<>();
        for (Map<String, String> r : rows) {
            if (r.get("status").equals("completed")) {
                assertTrue(used.add(r.get("task")), "a task used twice: " + r);
            }
        }
        assertEquals(completed, used.size(), timings + ": tasks used");
        int late = 0;
        int cancelled = 0;
        for (Map<String, String> r : rows) {
            String status = r.get("status");
            if (status.equals("completed")) {
                continue;
            }
            assertTrue(used.contains(r.get("task")), "only a losing copy of a used task is not used: " + r);
            switch (status) {
                case "late" -> late++;
                case "cancelled" -> cancelled++;
                default -> throw new AssertionError("a losing copy is late or cancelled: " + r);
            }
        }
        return new Losers(late, cancelled);
    }
}
