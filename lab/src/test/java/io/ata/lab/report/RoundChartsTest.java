package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.ata.lab.timinglog.TimingRecord;
import io.ata.lab.timinglog.TimingRecord.Status;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoundChartsTest {
    private static TimingRecord task(String worker, long round, double ms, Status status) {
        return new TimingRecord(worker, ms, round, worker + "/" + round, 1000L * round, status);
    }

    /** Round 1: agent-10 ran two tasks, agent-2 one; round 2: agent-2 one (cancelled). */
    private static LiveRounds job() {
        return new LiveRounds(
                "ata-auto",
                new double[] {10, 30},
                List.of(
                        task("agent-10", 1, 5, Status.COMPLETED),
                        task("agent-10", 1, 7, Status.COMPLETED),
                        task("agent-2", 1, 4, Status.COMPLETED),
                        task("agent-2", 2, 2, Status.CANCELLED)));
    }

    @Test
    void workersAreInNaturalOrderOfTheirNames() {
        assertEquals(List.of("agent-2", "agent-10"), RoundCharts.workersInOrder(List.of(job())));
        assertEquals(
                List.of("a", "a-1", "a-9", "a-10", "b-1"),
                new ArrayList<>(List.of("b-1", "a-10", "a-9", "a", "a-1"))
                        .stream().sorted(RoundCharts::naturalOrder).toList());
    }

    @Test
    void theAllocationCountsEveryTaskOfEveryWorkerAndRound() {
        double[][] xyz = RoundCharts.tasksPerWorkerAndRound(job(), List.of("agent-2", "agent-10"));
        // cells row by row, the first worker (agent-2) drawn on top (y = 1)
        assertArrayEquals(new double[] {1, 2, 1, 2}, xyz[0]);
        assertArrayEquals(new double[] {1, 1, 0, 0}, xyz[1]);
        assertArrayEquals(new double[] {1, 1, 2, 0}, xyz[2]);
    }

    @Test
    void workerTimeAccumulatesOverRoundsInSeconds() {
        LineChart.Curve c = RoundCharts.cumulativeWorkerSeconds(job());
        assertArrayEquals(new double[] {1, 2}, c.x());
        assertArrayEquals(new double[] {0.016, 0.018}, c.y(), 1e-12);
    }

    @Test
    void roundTimesAreAveragedOverWindows() {
        LineChart.Curve c = RoundCharts.movingMean("p", new double[] {1, 3, 5, 7, 9}, 2);
        assertArrayEquals(new double[] {2, 4}, c.x());
        assertArrayEquals(new double[] {2, 6}, c.y());
    }

    @Test
    void bothChartsAreDrawn(@TempDir Path dir) throws IOException {
        RoundCharts.writeRounds(dir.resolve(RoundCharts.ROUNDS_FILE), List.of(job()), "header");
        RoundCharts.writeAllocation(dir.resolve(RoundCharts.ALLOCATION_FILE), List.of(job(), job()), "header");
        BufferedImage rounds = ImageIO.read(dir.resolve(RoundCharts.ROUNDS_FILE).toFile());
        BufferedImage allocation =
                ImageIO.read(dir.resolve(RoundCharts.ALLOCATION_FILE).toFile());
        assertNotNull(rounds);
        assertNotNull(allocation);
        assertEquals(600, allocation.getHeight(), "one row of 300 pixels per policy");
    }
}
