package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.testsupport.EndToEnd;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata bench-live --only policies} end to end, tiny: the demo's 12-agent fleet on a real
 * embedded broker, two policies for a few rounds each. It checks what the command reports and
 * writes (every measured round, the ratio to the first policy), never the figures.
 */
@EndToEnd
class LiveBenchPoliciesTest {

    @TempDir
    Path out;

    @Test
    void runsEachPolicyOnTheDemoFleetAndReportsItAgainstTheFirst() throws Exception {
        CliRun run = CliRun.of(
                "bench-live",
                "--only",
                "policies",
                "--fleet-policies",
                "uta,ata-auto-overhead",
                "--fleet-rounds",
                "4",
                "--ratio-warmup",
                "2",
                "--fleet-load",
                "idle",
                "--out",
                out.toString());

        assertEquals(0, run.exitCode(), run.transcript());
        List<String> lines =
                run.out().lines().filter(l -> l.startsWith("idle ")).toList();
        assertEquals(2, lines.size(), run.transcript());
        assertTrue(lines.get(0).matches("idle +uta +4 .* 1\\.000$"), "uta against itself: " + lines.get(0));
        assertTrue(lines.get(1).matches("idle +ata-auto-overhead +4 .*"), lines.get(1));

        List<Map<String, String>> rows =
                CsvTable.read(out.resolve("policies.csv")).rows();
        assertEquals(8, rows.size(), "4 measured rounds of each policy, not the warm-up job's");
        assertTrue(rows.stream().allMatch(r -> CsvTable.number(r, "round_ms") > 0));
    }

    @Test
    void refusesAnUnknownLoad() {
        CliRun run = CliRun.of("bench-live", "--only", "policies", "--fleet-load", "heavy");
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("--fleet-load takes idle and busy-core"), run.transcript());
    }
}
