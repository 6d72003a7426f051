package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.workeragent.AgentConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ata worker --stalled-job-wait}: how long a round planned ahead waits while its job's model
 * is quiet before it is dead-lettered as the work of a stopped job (the rule is tested in
 * {@code AssignmentRunnerTest}, on Kafka in {@code AgentParkingTest}; its usage errors in
 * {@link LiveCommandsUsageTest}).
 */
class WorkerStalledJobWaitOptionTest {

    private static final List<String> WORKER = List.of("worker", "--bootstrap-servers", "k:9092", "--worker-id", "w");

    private static AgentConfig config(String... args) {
        WorkerCommand worker = CliRun.parsed(WorkerCommand.class, WORKER, args);
        return worker.config(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    @Test
    void itDefaultsToTheAgentsTenMinutesAndTakesALengthOfTime() {
        assertEquals(AgentConfig.DEFAULT_STALLED_JOB_WAIT, config().stalledJobWait());
        assertEquals(Duration.ofMinutes(10), config().stalledJobWait());
        assertEquals(Duration.ofSeconds(90), config("--stalled-job-wait", "90s").stalledJobWait());
        assertEquals(Duration.ofHours(1), config("--stalled-job-wait", "PT1H").stalledJobWait());
    }

    @Test
    void theModelRetentionDefaultsToADayAndTakesALengthOfTimeNoShorterThanTheWait() {
        assertEquals(AgentConfig.DEFAULT_MODEL_RETENTION, config().modelRetention());
        assertEquals(Duration.ofDays(1), config().modelRetention());
        assertEquals(Duration.ofHours(2), config("--model-retention", "2h").modelRetention());
        assertEquals(
                Duration.ofMinutes(1),
                config("--stalled-job-wait", "30s", "--model-retention", "1m").modelRetention());
    }

    /** The early start itself is tested in {@code AssignmentRunnerTest} and, on Kafka, {@code EarlyStartTest}. */
    @Test
    void tasksStartBeforeTheirVersionCommitsUnlessTurnedOff() {
        assertTrue(config().earlyStart());
        assertFalse(config("--no-early-start").earlyStart());
        assertTrue(config("--early-start").earlyStart());
    }
}
