package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Test;

/** The gradients consumer is a static member of its job's group, so a restarted trainer resumes at once. */
class TrainerClientsTest {
    private static TrainerConfig.Builder trainer() {
        return TrainerConfig.builder().bootstrapServers("kafka:9092").job("j").batch(4);
    }

    @Test
    void theGradientsConsumerIsAStaticMemberOfTheJobsGroupWithAShortSession() {
        Map<String, Object> c = TrainerClients.gradientsConsumer(trainer().build());
        assertEquals("ata.trainer-j", c.get(ConsumerConfig.GROUP_ID_CONFIG));
        assertEquals("ata.trainer-j", c.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        Map<String, Object> staging =
                TrainerClients.gradientsConsumer(trainer().topicPrefix("stg.").build());
        assertEquals("stg.trainer-j", staging.get(ConsumerConfig.GROUP_ID_CONFIG));
        assertEquals("stg.trainer-j", staging.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        assertEquals(TrainerClients.DEFAULT_SESSION_TIMEOUT_MS, c.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        // the model reader joins no group, so it has no instance id either
        assertFalse(TrainerClients.modelReader(trainer().build()).containsKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    }

    @Test
    void theUserMayChooseTheInstanceIdAndSessionAndTheConsumerProtocolTakesTheClustersSession() {
        Map<String, Object> mine = TrainerClients.gradientsConsumer(trainer()
                .clientProperty(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "trainer-a")
                .clientProperty(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000)
                .build());
        assertEquals("trainer-a", mine.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        assertEquals(30_000, mine.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        Map<String, Object> kip848 = TrainerClients.gradientsConsumer(trainer()
                .clientProperty(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer")
                .build());
        assertFalse(kip848.containsKey(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
    }
}
