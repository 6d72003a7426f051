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

    /**
     * Checks a job's timing log (CSV, as {@code ata export-timings} and {@code ata demo} write it):
     * {@code completed} distinct tasks were used, and every other record is a late result of one of
     * those tasks.
     *
     * @return the number of losing copies
     */
    static int assertOnlyLosingCopies(Path timings, long completed) throws IOException {
        List<Map<String, String>> rows = CsvTable.read(timings).rows();
        Set<String> used = new HashSet<>();
        for (Map<String, String> r : rows) {
            if (r.get("status").equals("completed")) {
                assertTrue(used.add(r.get("task")), "a task used twice: " + r);
            }
        }
        assertEquals(completed, used.size(), timings + ": tasks used");
        int losers = 0;
        for (Map<String, String> r : rows) {
            if (!r.get("status").equals("completed")) {
                assertEquals("late", r.get("status"), "only a race's loser is not used: " + r);
                assertTrue(used.contains(r.get("task")), "a late result of a task that was used: " + r);
                losers++;
            }
        }
        return losers;
    }
}
