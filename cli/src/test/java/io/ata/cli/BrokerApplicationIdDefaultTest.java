package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Topics;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ata broker} without {@code --application-id} is an instance of the topic prefix's broker
 * application, {@code <prefix>broker} ({@link Topics#brokerApplicationId()}), the one the
 * embedded deployment runs: an {@code ata broker} added to it shares its jobs rather than
 * allocating every job a second time.
 */
class BrokerApplicationIdDefaultTest {

    /** {@code ata broker ARGS} parsed as {@code ata} parses it, nothing run; its application id. */
    private static String applicationId(String... args) {
        BrokerCommand broker =
                CliRun.parsed(BrokerCommand.class, List.of("broker", "--bootstrap-servers", "k:9092"), args);
        return broker.applicationId();
    }

    @Test
    void withoutApplicationIdItIsThePrefixsBroker() {
        assertEquals("x.broker", applicationId("--topic-prefix", "x."));
        assertEquals("ata.broker", applicationId());
        assertEquals(new Topics("x.").brokerApplicationId(), applicationId("--topic-prefix", "x."));
    }

    @Test
    void aGivenApplicationIdWins() {
        assertEquals("mine", applicationId("--topic-prefix", "x.", "--application-id", "mine"));
    }

    @Test
    void theHelpSaysWhereTheDefaultComesFrom() {
        String help = CliRun.helpText("broker");
        assertTrue(help.contains("(default: <topic-prefix>broker, e.g. ata.broker"), help);
        assertFalse(help.contains("ata-broker"), help);
    }
}
