package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.workeragent.AgentConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ata worker} without {@code --group-id} joins the group of the topic prefix's agents,
 * {@code <prefix>workers}, the group the embedded deployment's agents use (see
 * {@link WorkerBesideLocalDeploymentTest} for the two side by side on Kafka): a worker added to a
 * deployment with another prefix than the default must not land in a group of its own.
 */
class WorkerGroupDefaultTest {

    /** {@code ata worker ARGS} parsed as {@code ata} parses it, nothing run; the command's agent configuration. */
    private static AgentConfig config(String... args) {
        WorkerCommand worker = CliRun.parsed(
                WorkerCommand.class, List.of("worker", "--bootstrap-servers", "k:9092", "--worker-id", "w"), args);
        return worker.config(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    @Test
    void withoutGroupIdTheGroupIsThePrefixsWorkers() {
        AgentConfig config = config("--topic-prefix", "x.");
        assertEquals("x.workers", config.groupId());
        assertEquals("x.", config.topicPrefix());
    }

    @Test
    void theDefaultPrefixGivesAtaDotWorkers() {
        assertEquals("ata.workers", config().groupId());
        assertEquals("workers", config("--topic-prefix", "").groupId(), "an empty prefix too");
    }

    @Test
    void aGivenGroupIdWins() {
        assertEquals(
                "fleet", config("--topic-prefix", "x.", "--group-id", "fleet").groupId());
    }

    @Test
    void theHelpSaysWhereTheDefaultComesFrom() {
        String help = CliRun.helpText("worker");
        assertTrue(help.contains("(default: <topic-prefix>workers, e.g. ata.workers"), help);
        assertTrue(!help.contains("ata-workers"), help);
    }
}
