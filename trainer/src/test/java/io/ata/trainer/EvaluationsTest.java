package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Evaluation;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Versions scored in the background, in order, on a thread that ends when idle. */
class EvaluationsTest {
    private static final String JOB = "scored";

    @Test
    void theScoringThreadEndsWhenIdleAndTheNextVersionIsScoredOnANewOne() {
        try (Evaluations evaluations = new Evaluations(
                JOB,
                new ObjectiveModel(SquaredNorm.INSTANCE),
                1,
                1,
                Clock.systemUTC(),
                new TrainerMetrics(new SimpleMeterRegistry(), JOB, new JobProgress()),
                50)) {
            evaluations.submit(0, FlatTensor.of(new double[] {1, 1}), 0, false);
            Awaitility.await("version 0 scored")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> evaluations.ready().size() == 1);
            Awaitility.await("the idle scoring thread ended")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> scoringThreads() == 0);

            evaluations.submit(1, FlatTensor.of(new double[] {0, 0}), 0, false);
            Awaitility.await("version 1 scored")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> evaluations.ready().size() == 2);
            List<Evaluation> scored = evaluations.ready();
            assertEquals(
                    List.of(0L, 1L),
                    scored.stream().map(Evaluation::getModelVersion).toList());
            assertTrue(scored.get(0).getTestLoss() > scored.get(1).getTestLoss(), "|x|^2 scored: " + scored);
        }
    }

    private static long scoringThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("ata-trainer-" + JOB + "-evaluation"))
                .count();
    }
}
