package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The benchmark command runs its cases and prints figures (their values are not asserted). */
class BenchCommandTest {
    private static final Pattern RATE = Pattern.compile("[\\d,]+\\s*$");

    @Test
    void simulatorCasesPrintARatePerPolicyIncludingNamesWithAColon() {
        for (String policy : new String[] {"ata-auto", "ata-hedge:2"}) {
            CliRun run = CliRun.of("bench", "--case", "simulator:51:" + policy, "--rounds", "2000");
            assertEquals(0, run.exitCode(), run.transcript());
            String line = run.out().strip();
            assertTrue(line.startsWith("51") && line.contains(policy), line);
            assertTrue(RATE.matcher(line).find(), "ends with rounds/s: " + line);
        }
    }

    @Test
    void sgdCaseAndUnknownCases() {
        CliRun sgd = CliRun.of("bench", "--case", "sgd", "--rounds", "2000");
        assertEquals(0, sgd.exitCode(), sgd.transcript());
        assertTrue(sgd.out().contains("rounds/s"), sgd.out());
        CliRun bad = CliRun.of("bench", "--case", "nonsense");
        assertTrue(bad.exitCode() != 0);
        assertTrue(bad.err().contains("unknown benchmark case"), bad.transcript());
    }
}
