package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@code ata bench-soak}'s command line, without running a soak (the soak itself is {@code
 * io.ata.e2e.SoakTest}): bad values are usage errors, and the help names what it reports.
 */
class SoakBenchCommandTest {

    @Test
    void aDurationOrFleetOutOfRangeIsAUsageError() {
        for (String[] args : new String[][] {
            {"bench-soak", "--minutes", "0"}, {"bench-soak", "--minutes", "-1"}, {"bench-soak", "--agents", "0"}
        }) {
            CliRun run = CliRun.of(args);
            assertEquals(2, run.exitCode(), run.transcript());
            assertTrue(run.err().contains("--minutes") || run.err().contains("--agents"), run.transcript());
        }
    }

    @Test
    void theHelpNamesTheGoalsAndTheOutputs() {
        String help = CliRun.helpText("bench-soak");
        for (String expected : new String[] {
            "--minutes",
            "--out",
            "--seed",
            "--agents",
            "no permanent stall",
            "within 1 s",
            "/health",
            "soak.csv",
            "soak-gaps.png",
            "Exit code 3"
        }) {
            assertTrue(help.contains(expected), expected + " in " + help);
        }
    }
}
