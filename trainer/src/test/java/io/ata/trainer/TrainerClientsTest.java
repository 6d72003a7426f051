package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
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

    @Test
    void aHostsReadersSeeAddedPartitionsWithinTheirCheckAndJoinNoGroup() {
        Map<String, Object> user = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "someone's", "bootstrap.servers", "k:9092");
        for (Map<String, Object> c : java.util.List.of(
                TrainerClients.hostReader(user),
                TrainerClients.hostWatcher(user, ""),
                TrainerClients.hostWatcher(user, "-catch-up"))) {
            assertEquals(
                    (int) SharedGradientsReader.PARTITIONS_CHECK_MS, c.get(ConsumerConfig.METADATA_MAX_AGE_CONFIG));
            assertFalse(c.containsKey(ConsumerConfig.GROUP_ID_CONFIG));
            assertEquals("read_committed", c.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
        }
        assertEquals(
                "ata-trainer-host-deadlines-catch-up",
                TrainerClients.hostWatcher(user, "-catch-up").get(ConsumerConfig.CLIENT_ID_CONFIG));
    }

    @Test
    void aHostsOverdueProducerWaitsASecondAtMostInASendUnlessTheUserSaysOtherwise() {
        Map<String, Object> user = Map.of("bootstrap.servers", "k:9092");
        assertEquals(
                TrainerClients.HOST_MAX_BLOCK_MS,
                TrainerClients.hostOverdueProducer(user).get(ProducerConfig.MAX_BLOCK_MS_CONFIG),
                "the host's one thread sends for every job");
        assertEquals(
                5_000,
                TrainerClients.hostOverdueProducer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000))
                        .get(ProducerConfig.MAX_BLOCK_MS_CONFIG));
        assertFalse(
                TrainerClients.overdueProducer(trainer().build()).containsKey(ProducerConfig.MAX_BLOCK_MS_CONFIG),
                "a trainer alone sends from its own watch's thread: Kafka's default");
    }

    @Test
    void consumersForOneShortTaskRegisterNoJmxBeansAndPushNoMetricsUnlessTheUserAsks() {
        for (Map<String, Object> c : java.util.List.of(
                TrainerClients.modelReader(trainer().build()),
                TrainerClients.catchUpReader(trainer().build()))) {
            assertEquals("", c.get(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG));
            assertEquals(false, c.get(CommonClientConfigs.ENABLE_METRICS_PUSH_CONFIG));
        }
        Map<String, Object> watched = TrainerClients.catchUpReader(trainer()
                .clientProperty(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG, "com.example.Reporter")
                .build());
        assertEquals("com.example.Reporter", watched.get(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG));
        assertFalse(
                TrainerClients.gradientsConsumer(trainer().build())
                        .containsKey(CommonClientConfigs.METRIC_REPORTER_CLASSES_CONFIG),
                "a long-lived client keeps Kafka's default");
    }
}
