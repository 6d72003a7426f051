package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.sim.RunResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    @Test
    void scientificNumbers() {
        assertEquals("5.849e+08", ResultTable.sci(5.849e8));
        assertEquals("1.000e-03", ResultTable.sci(0.001));
        assertEquals("-", ResultTable.sci(Double.NaN));
    }

    @Test
    void alignsColumnsAndShowsEarlyStops() {
        Map<String, List<RunResult>> results = new LinkedHashMap<>();
        results.put("fta", List.of(RunResults.run("fta", 5, 100, null)));
        results.put(
                "ata-hedge:2",
                List.of(RunResults.run("ata-hedge:2", 5, 40, "worker w1 has used all its 8 recorded durations")));
        String table = ResultTable.format(Reports.summaries(results), results);
        List<String> lines = table.lines().toList();
        assertEquals(3, lines.size(), table);
        assertTrue(lines.get(0).startsWith("policy       rounds"), table);
        assertTrue(lines.get(0).endsWith("stopped early"), table);
        assertTrue(
                lines.get(2).contains("seed 5 after round 40: worker w1 has used all its 8 recorded durations"), table);
        assertTrue(lines.get(1).trim().endsWith("-"), "fta did not stop: " + table);
        // right-aligned numbers: the runtime column ends at the same position on every line
        int end = lines.get(0).indexOf("runtime") + "runtime".length();
        assertEquals(' ', lines.get(1).charAt(end), table);
        assertTrue(Character.isDigit(lines.get(1).charAt(end - 1)), table);
        assertTrue(Character.isDigit(lines.get(2).charAt(end - 1)), table);
    }
}
