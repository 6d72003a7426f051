package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.trainer.TrainerConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ata trainer}'s Kafka ids: by default {@code <prefix>trainer-<job>} for both its group and
 * its transactional id (so two deployments on one cluster never fence each other's trainer), and
 * {@code --group-id} / {@code --transactional-id} to keep others, e.g. an earlier build's ids during
 * an upgrade.
 */
class TrainerIdsOptionTest {

    /** {@code ata trainer ARGS} parsed as {@code ata} parses it, nothing run; the trainer's configuration. */
    private static TrainerConfig config(String... args) {
        TrainerCommand trainer = CliRun.parsed(
                TrainerCommand.class, List.of("trainer", "--bootstrap-servers", "k:9092", "--job", "j"), args);
        return trainer.configure(
                new PrintWriter(new StringWriter()), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    @Test
    void byDefaultBothIdsAreThePrefixsTrainerOfTheJob() {
        TrainerConfig config = config("--topic-prefix", "stg.");
        assertEquals("stg.trainer-j", config.groupId());
        assertEquals("stg.trainer-j", config.transactionalId());
    }

    @Test
    void givenIdsWin() {
        TrainerConfig config = config("--group-id", "ata-trainer-j", "--transactional-id", "ata-trainer-j");
        assertEquals("ata-trainer-j", config.groupId());
        assertEquals("ata-trainer-j", config.transactionalId());
    }
}
